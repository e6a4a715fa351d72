# A fresh database for every test, copied from the template that pg-tmpfs prepared (minitest).
#
# Run by tests/e2e/examples.test.ts, as the Node, Python and Go examples beside this one are, with
# Debian 12's Ruby 3.1, pg 1.4.5 and minitest 5.15.
#
# DATABASE_URL points at the template database (the action's `database:` input, marked a
# template by `template: true`); TEMPLATE_DATABASE overrides its name. The copies are made from
# the maintenance database `postgres`, since PostgreSQL refuses to copy a database that has open
# connections.
#
# RSpec: the same two calls around each example:
#   config.around(:each) do |example|
#     @database_url = PerTestDatabase.create
#     example.run
#   ensure
#     PerTestDatabase.drop(@database_url)
#   end
require "pg"
require "securerandom"
require "uri"

module PerTestDatabase
  DATABASE_URL = ENV.fetch("DATABASE_URL") { raise "DATABASE_URL is not set: start PostgreSQL with pg-tmpfs first" }
  TEMPLATE = ENV.fetch("TEMPLATE_DATABASE", "").then do |name|
    name.empty? ? URI.decode_www_form_component(URI(DATABASE_URL).path.delete_prefix("/")) : name
  end

  # DATABASE_URL with another database name.
  def self.url_for(database)
    URI(DATABASE_URL).tap { |url| url.path = "/#{URI.encode_www_form_component(database)}" }.to_s
  end

  # Runs one statement on the maintenance database.
  def self.admin(sql)
    conn = PG.connect(url_for("postgres"))
    conn.exec(sql)
  ensure
    conn&.close
  end

  # Copies the template into a database of its own (milliseconds on tmpfs); returns its URL.
  def self.create
    name = "test_#{Process.pid}_#{SecureRandom.hex(4)}"
    # STRATEGY FILE_COPY (PostgreSQL 15+) copies the files: the fastest way on tmpfs. On 14 and
    # older, leave the clause out (a file copy is all they do).
    admin("CREATE DATABASE #{PG::Connection.quote_ident(name)} " \
          "TEMPLATE #{PG::Connection.quote_ident(TEMPLATE)} STRATEGY FILE_COPY")
    url_for(name)
  end

  # Drops a copy; FORCE (PostgreSQL 13+) ends connections the test left open.
  def self.drop(url)
    name = URI.decode_www_form_component(URI(url).path.delete_prefix("/"))
    admin("DROP DATABASE IF EXISTS #{PG::Connection.quote_ident(name)} WITH (FORCE)")
  end

  # Include in a Minitest::Test: @database_url and @db (a connection) for each test.
  def setup
    super
    @database_url = PerTestDatabase.create
    @db = PG.connect(@database_url)
  end

  def teardown
    @db&.close
    PerTestDatabase.drop(@database_url) if @database_url
    super
  end
end
