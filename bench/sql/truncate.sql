-- One test of a suite that cleans its tables with TRUNCATE: load 20 fixture rows, read them,
-- then TRUNCATE ... RESTART IDENTITY (as DatabaseCleaner's truncation strategy and many
-- hand-written afterEach hooks do). Each pgbench client has its own tables, like one worker of a
-- parallel suite.
INSERT INTO fx_users_:client_id (email, name) SELECT 'user' || g || '@example.com', 'User ' || g FROM generate_series(1, 10) AS g;
INSERT INTO fx_orders_:client_id (user_id, total) SELECT id, 9.99 FROM fx_users_:client_id;
SELECT count(*) FROM fx_orders_:client_id o JOIN fx_users_:client_id u ON u.id = o.user_id;
TRUNCATE fx_orders_:client_id, fx_users_:client_id RESTART IDENTITY;
