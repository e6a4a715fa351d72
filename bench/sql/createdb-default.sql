-- A fresh database per test, copied from a template holding the schema (20 tables), then
-- dropped; for servers before PostgreSQL 15, which have no STRATEGY option.
CREATE DATABASE bench_db_:client_id TEMPLATE bench_template;
DROP DATABASE bench_db_:client_id;
