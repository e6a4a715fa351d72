-- A fresh database per test, copied from a template holding the schema (20 tables), then
-- dropped. FILE_COPY (the only strategy before PostgreSQL 15) copies the files and runs a
-- checkpoint before and after.
CREATE DATABASE bench_db_:client_id TEMPLATE bench_template STRATEGY FILE_COPY;
DROP DATABASE bench_db_:client_id;
