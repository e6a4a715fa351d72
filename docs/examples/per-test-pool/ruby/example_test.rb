# Each test gets its own copy of the template from the pool: both inserts of the same (unique)
# email succeed, and each test counts one row. The same 4 tests as ../../per-test-clone/ruby.
#
# Run, against a server started with
# `pg-tmpfs up --database app --init ../per-test-clone/schema.sql --template --pool 4`:
#   bundle install && DATABASE_URL=postgresql://postgres:postgres@127.0.0.1:5432/app bundle exec ruby example_test.rb
require "minitest/autorun"
require_relative "per_test_pool"

class ExampleTest < Minitest::Test
  include PerTestPool

  def test_the_template_schema_is_there
    tables = @db.exec(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name"
    ).column_values(0)
    assert_equal %w[posts users], tables
  end

  def test_a_test_runs_in_a_database_of_its_own
    name = @db.exec("SELECT current_database()").getvalue(0, 0)
    assert_equal @database_url, PerTestPool.url_for(name)
    refute_equal PerTestPool::DATABASE_URL, @database_url
  end

  def test_first_insert_sees_only_its_own_row
    @db.exec("INSERT INTO users (email) VALUES ('alice@example.com')")
    assert_equal 1, @db.exec("SELECT count(*) FROM users").getvalue(0, 0).to_i
  end

  def test_second_insert_of_the_same_email_sees_only_its_own_row
    @db.exec("INSERT INTO users (email) VALUES ('alice@example.com')")
    assert_equal 1, @db.exec("SELECT count(*) FROM users").getvalue(0, 0).to_i
  end
end
