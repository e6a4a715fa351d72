require "test_helper"

class BookTest < ActiveSupport::TestCase
  test "the seeds made the genres" do
    assert_equal %w[fiction poetry], Genre.order(:name).pluck(:name)
  end

  test "a book has an author, a genre and a unique isbn" do
    author = Author.create!(name: "Ursula K. Le Guin")
    Book.create!(title: "The Dispossessed", author: author, genre: Genre.find_by!(name: "fiction"), isbn: "978-0-06-051275-0")
    assert_equal "Ursula K. Le Guin", Book.find_by!(isbn: "978-0-06-051275-0").author.name
  end
end
