-- Section 9 (per_test), after each test: TRUNCATE of the three tables the test touched, as
-- DatabaseCleaner's truncation strategy and many hand-written afterEach hooks do. The foreign
-- keys from the other tables that reference them (addresses, carts, cart_items, reviews,
-- payments, shipments, shipment_items, order_coupons; empty) need CASCADE, which empties those
-- too: 11 tables in all. RESTART IDENTITY resets their sequences.
TRUNCATE customers, orders, order_items RESTART IDENTITY CASCADE;
