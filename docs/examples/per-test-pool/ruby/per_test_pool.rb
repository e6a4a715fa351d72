# A ready copy of the template for every test, taken from pg-tmpfs's pool (minitest, pg gem).
#
# Needs: pg-tmpfs started with `template: true` and `pool: N` (CLI: `--template --pool N`),
# PostgreSQL 15+. With the pool off, pgtmpfs.take() fails with "this server has no pool": use the
# CREATE DATABASE ... TEMPLATE example instead (../../per-test-clone/ruby/per_test_database.rb).
#
# DATABASE_URL points at the template database; the copies are taken and given back on the
# maintenance database `postgres` (same host, port, user and password), over one connection per
# process, so a take is one round trip. Nothing connects to the template: a session on it makes
# the ready copies stale (take() skips them and the keeper makes new ones).
#
# RSpec: the same two calls around each example:
#   config.around(:each) do |example|
#     @database_url = PerTestPool.take
#     example.run
#   ensure
#     PerTestPool.give_back(@database_url)
#   end
require "pg"
require "uri"

module PerTestPool
  DATABASE_URL = ENV.fetch("DATABASE_URL") { raise "DATABASE_URL is not set: start PostgreSQL with pg-tmpfs first" }

  # DATABASE_URL with another database name.
  def self.url_for(database)
    URI(DATABASE_URL).tap { |url| url.path = "/#{URI.encode_www_form_component(database)}" }.to_s
  end

  # The connection to `postgres`, opened on first use and kept until the process ends.
  def self.maintenance
    @maintenance ||= PG.connect(url_for("postgres")).tap { |conn| at_exit { conn.close } }
  end

  # Takes a copy from the pool (waits up to 10 s when every copy is taken: pgtmpfs.take(timeout_ms)
  # to change it); returns its URL.
  def self.take
    url_for(maintenance.exec("SELECT pgtmpfs.take()").getvalue(0, 0))
  end

  # Gives a copy back; the keeper drops it. Close your connections to it first.
  def self.give_back(url)
    name = URI.decode_www_form_component(URI(url).path.delete_prefix("/"))
    maintenance.exec_params("SELECT pgtmpfs.give_back($1)", [name])
  end

  # Include in a Minitest::Test: @database_url and @db (a connection) for each test.
  def setup
    super
    @database_url = PerTestPool.take
    @db = PG.connect(@database_url)
  end

  def teardown
    @db&.close
    PerTestPool.give_back(@database_url) if @database_url
    super
  end
end
