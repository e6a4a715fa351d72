-- The body of one test in section 9 (per_test), the same in every case: it touches three tables
-- (customers, orders, order_items) as an ORM would, one statement at a time: a customer, an
-- order with three items, the order's total, then a read of it all back with a join. In the
-- pgbench script syntax: :name is a variable, \gset stores the returned row's columns in
-- variables. The section runs it with its own client (bench/sections/per-test.ts), statement by
-- statement, on one connection.
INSERT INTO customers (country_id, email, name) VALUES (1, 'ada@example.com', 'Ada Lovelace') RETURNING id AS customer_id \gset
INSERT INTO orders (customer_id, currency_id) VALUES (:customer_id, 1) RETURNING id AS order_id \gset
INSERT INTO order_items (order_id, product_id, quantity, unit_price) VALUES (:order_id, 1, 2, 2.37);
INSERT INTO order_items (order_id, product_id, quantity, unit_price) VALUES (:order_id, 2, 1, 3.74);
INSERT INTO order_items (order_id, product_id, quantity, unit_price) VALUES (:order_id, 3, 3, 5.11);
UPDATE orders SET status = 'paid', total = (SELECT sum(quantity * unit_price) FROM order_items WHERE order_id = :order_id) WHERE id = :order_id;
SELECT c.name, o.status, o.total, count(*) AS items, string_agg(p.sku, ',' ORDER BY p.sku) AS skus
FROM customers c JOIN orders o ON o.customer_id = c.id JOIN order_items i ON i.order_id = o.id JOIN products p ON p.id = i.product_id
WHERE c.id = :customer_id GROUP BY c.name, o.status, o.total;
