-- Section 9 (per_test), after each test: DELETE of the rows the three touched tables hold (all
-- of them: the test started with them empty), children first because of the foreign keys.
-- Sequences go on counting, and dead rows stay for autovacuum, as with a DELETE-based cleaner.
DELETE FROM order_items;
DELETE FROM orders;
DELETE FROM customers;
