-- A test that does real work, for section 9's table `real_work` (issue #43): what an
-- application's integration test does against the 20-table schema, one statement per round trip
-- as an ORM sends them. A migration step (ALTER TABLE, CREATE INDEX: DDL, as some suites run in
-- their tests), a customer with an address and a cart, 5 orders of 4 items each checked out from
-- the cart, stock moved, payments and a shipment, reviews, 200 audit rows, and the reads a test
-- asserts on (joins, aggregates, a window function, a jsonb filter). About 45 round trips.
ALTER TABLE orders ADD COLUMN note text;
CREATE INDEX ON order_items (product_id, order_id);
INSERT INTO customers (country_id, email, name) VALUES (2, 'grace@example.com', 'Grace Hopper') RETURNING id AS customer_id \gset
INSERT INTO addresses (customer_id, country_id, line1, city, postal_code) VALUES (:customer_id, 2, '1 Rue de Rivoli', 'Paris', '75001');
INSERT INTO carts (customer_id) VALUES (:customer_id) RETURNING id AS cart_id \gset
INSERT INTO cart_items (cart_id, product_id, quantity) SELECT :cart_id, p, 1 + p % 3 FROM generate_series(1, 20) AS p;
SELECT count(*) AS cart_lines, sum(ci.quantity * p.price) AS cart_total FROM cart_items ci JOIN products p ON p.id = ci.product_id WHERE ci.cart_id = :cart_id;
INSERT INTO orders (customer_id, currency_id, note) VALUES (:customer_id, 1, 'first') RETURNING id AS o1 \gset
INSERT INTO order_items (order_id, product_id, quantity, unit_price) SELECT :o1, ci.product_id, ci.quantity, p.price FROM cart_items ci JOIN products p ON p.id = ci.product_id WHERE ci.cart_id = :cart_id AND ci.product_id <= 4;
INSERT INTO orders (customer_id, currency_id) VALUES (:customer_id, 1) RETURNING id AS o2 \gset
INSERT INTO order_items (order_id, product_id, quantity, unit_price) SELECT :o2, ci.product_id, ci.quantity, p.price FROM cart_items ci JOIN products p ON p.id = ci.product_id WHERE ci.cart_id = :cart_id AND ci.product_id BETWEEN 5 AND 8;
INSERT INTO orders (customer_id, currency_id) VALUES (:customer_id, 1) RETURNING id AS o3 \gset
INSERT INTO order_items (order_id, product_id, quantity, unit_price) SELECT :o3, ci.product_id, ci.quantity, p.price FROM cart_items ci JOIN products p ON p.id = ci.product_id WHERE ci.cart_id = :cart_id AND ci.product_id BETWEEN 9 AND 12;
INSERT INTO orders (customer_id, currency_id) VALUES (:customer_id, 1) RETURNING id AS o4 \gset
INSERT INTO order_items (order_id, product_id, quantity, unit_price) SELECT :o4, ci.product_id, ci.quantity, p.price FROM cart_items ci JOIN products p ON p.id = ci.product_id WHERE ci.cart_id = :cart_id AND ci.product_id BETWEEN 13 AND 16;
INSERT INTO orders (customer_id, currency_id) VALUES (:customer_id, 1) RETURNING id AS o5 \gset
INSERT INTO order_items (order_id, product_id, quantity, unit_price) SELECT :o5, ci.product_id, ci.quantity, p.price FROM cart_items ci JOIN products p ON p.id = ci.product_id WHERE ci.cart_id = :cart_id AND ci.product_id >= 17;
DELETE FROM cart_items WHERE cart_id = :cart_id;
UPDATE orders o SET total = s.total, status = 'paid' FROM (SELECT order_id, sum(quantity * unit_price) AS total FROM order_items GROUP BY order_id) s WHERE s.order_id = o.id AND o.customer_id = :customer_id;
UPDATE stock s SET quantity = s.quantity - i.quantity FROM order_items i JOIN orders o ON o.id = i.order_id WHERE o.customer_id = :customer_id AND s.product_id = i.product_id AND s.warehouse_id = 1;
SELECT count(*) AS short FROM stock WHERE warehouse_id = 1 AND quantity < 5 \gset
INSERT INTO payments (order_id, amount, provider, paid_at) SELECT id, total, 'card', now() FROM orders WHERE customer_id = :customer_id;
INSERT INTO coupons (code, percent_off) VALUES ('GRACE-' || :customer_id, 15) RETURNING id AS coupon_id \gset
INSERT INTO order_coupons (order_id, coupon_id) VALUES (:o1, :coupon_id);
UPDATE orders SET total = round(total * 0.85, 2), note = 'coupon' WHERE id = :o1;
INSERT INTO shipments (order_id, warehouse_id) VALUES (:o1, 1) RETURNING id AS shipment_id \gset
INSERT INTO shipment_items (shipment_id, order_item_id, quantity) SELECT :shipment_id, id, quantity FROM order_items WHERE order_id = :o1;
UPDATE shipments SET shipped_at = now() WHERE id = :shipment_id;
UPDATE orders SET status = 'shipped' WHERE id = :o1;
UPDATE orders SET status = 'cancelled' WHERE id = :o5;
UPDATE stock s SET quantity = s.quantity + i.quantity FROM order_items i WHERE i.order_id = :o5 AND s.product_id = i.product_id AND s.warehouse_id = 1;
INSERT INTO reviews (product_id, customer_id, rating, body) SELECT product_id, :customer_id, 1 + product_id % 5, 'review of ' || product_id FROM order_items WHERE order_id = :o1;
INSERT INTO audit_log (staff_user_id, entity, entity_id, action, data) SELECT 1 + g % 2, 'order', (ARRAY[:o1, :o2, :o3, :o4, :o5])[1 + g % 5], 'touch', jsonb_build_object('step', g, 'customer', :customer_id) FROM generate_series(1, 200) AS g;
SELECT o.status, count(*) AS orders, sum(o.total) AS total FROM orders o WHERE o.customer_id = :customer_id GROUP BY o.status ORDER BY o.status;
SELECT c.name, a.city, count(DISTINCT o.id) AS orders, count(i.id) AS items, sum(i.quantity * i.unit_price) AS gross FROM customers c JOIN addresses a ON a.customer_id = c.id JOIN orders o ON o.customer_id = c.id JOIN order_items i ON i.order_id = o.id WHERE c.id = :customer_id GROUP BY c.name, a.city;
SELECT p.sku, sum(i.quantity) AS sold, rank() OVER (ORDER BY sum(i.quantity) DESC) AS r FROM order_items i JOIN products p ON p.id = i.product_id JOIN orders o ON o.id = i.order_id WHERE o.customer_id = :customer_id AND o.status <> 'cancelled' GROUP BY p.sku ORDER BY r, p.sku LIMIT 10;
SELECT count(*) AS audited FROM audit_log WHERE entity = 'order' AND (data ->> 'customer')::bigint = :customer_id AND (data ->> 'step')::int % 7 = 0;
SELECT avg(r.rating) AS rating FROM reviews r WHERE r.customer_id = :customer_id;
SELECT s.id, count(si.id) AS lines FROM shipments s JOIN shipment_items si ON si.shipment_id = s.id WHERE s.order_id = :o1 GROUP BY s.id;
SELECT sum(amount) AS paid FROM payments p JOIN orders o ON o.id = p.order_id WHERE o.customer_id = :customer_id;
SELECT w.name, sum(s.quantity) AS units FROM stock s JOIN warehouses w ON w.id = s.warehouse_id GROUP BY w.name ORDER BY w.name;
UPDATE customers SET name = 'Grace B. Hopper' WHERE id = :customer_id;
SELECT name FROM customers WHERE id = :customer_id;
