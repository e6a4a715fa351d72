-- A fresh database per test, copied from a template holding the schema (20 tables), then
-- dropped. WAL_LOG (the default since PostgreSQL 15) copies block by block through the WAL.
CREATE DATABASE bench_db_:client_id TEMPLATE bench_template STRATEGY WAL_LOG;
DROP DATABASE bench_db_:client_id;
