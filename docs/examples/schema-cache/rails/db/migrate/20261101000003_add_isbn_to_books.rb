class AddIsbnToBooks < ActiveRecord::Migration[6.1]
  def change
    add_column :books, :isbn, :string, null: false
    add_index :books, :isbn, unique: true
  end
end
