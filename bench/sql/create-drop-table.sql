-- A test that creates its own table and drops it afterwards (a table per test, or a migration
-- run up and down). Each pgbench client uses its own table name.
CREATE TABLE tmp_:client_id (id bigserial PRIMARY KEY, name text NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
DROP TABLE tmp_:client_id;
