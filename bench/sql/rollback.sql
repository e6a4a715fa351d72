-- An ordinary test as many frameworks run it (Django's TestCase, Rails' transactional tests,
-- Laravel's RefreshDatabase, a fixture that wraps each test in a transaction): BEGIN, create a
-- user and three orders one INSERT each (as an ORM does), update the user, read them back with
-- a join, then ROLLBACK so the next test starts clean. Nothing is committed. Each pgbench
-- client has its own tables, like one worker of a parallel suite.
BEGIN;
INSERT INTO fx_users_:client_id (email, name) VALUES ('user' || :client_id || '@example.com', 'User') RETURNING id AS user_id \gset
INSERT INTO fx_orders_:client_id (user_id, total) VALUES (:user_id, 9.99);
INSERT INTO fx_orders_:client_id (user_id, total) VALUES (:user_id, 19.99);
INSERT INTO fx_orders_:client_id (user_id, total) VALUES (:user_id, 4.50);
UPDATE fx_users_:client_id SET name = 'Renamed user' WHERE id = :user_id;
SELECT u.name, count(*) AS orders, sum(o.total) AS total FROM fx_users_:client_id u JOIN fx_orders_:client_id o ON o.user_id = u.id WHERE u.id = :user_id GROUP BY u.name;
ROLLBACK;
