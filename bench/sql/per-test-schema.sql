-- The template of section 9 (per_test): a small shop's schema as migrations leave it, 20 tables,
-- each with its own sequence (bigserial), foreign keys with an index on each referencing column,
-- unique constraints, and seed rows in the reference tables (countries, currencies, categories,
-- products, warehouses, stock, coupons, staff). The tables a test touches (customers, orders,
-- order_items; see per-test-body.sql) start empty, as do the others that reference them.
CREATE TABLE countries (
  id bigserial PRIMARY KEY,
  code char(2) NOT NULL UNIQUE,
  name text NOT NULL
);
CREATE TABLE currencies (
  id bigserial PRIMARY KEY,
  code char(3) NOT NULL UNIQUE,
  decimals smallint NOT NULL DEFAULT 2
);
CREATE TABLE categories (
  id bigserial PRIMARY KEY,
  parent_id bigint REFERENCES categories (id),
  name text NOT NULL,
  slug text NOT NULL UNIQUE
);
CREATE INDEX categories_parent_id ON categories (parent_id);
CREATE TABLE products (
  id bigserial PRIMARY KEY,
  category_id bigint NOT NULL REFERENCES categories (id),
  currency_id bigint NOT NULL REFERENCES currencies (id),
  sku text NOT NULL UNIQUE,
  name text NOT NULL,
  price numeric(12, 2) NOT NULL CHECK (price >= 0),
  attributes jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX products_category_id ON products (category_id);
CREATE TABLE warehouses (
  id bigserial PRIMARY KEY,
  country_id bigint NOT NULL REFERENCES countries (id),
  name text NOT NULL
);
CREATE TABLE stock (
  id bigserial PRIMARY KEY,
  product_id bigint NOT NULL REFERENCES products (id),
  warehouse_id bigint NOT NULL REFERENCES warehouses (id),
  quantity integer NOT NULL DEFAULT 0,
  UNIQUE (product_id, warehouse_id)
);
CREATE INDEX stock_warehouse_id ON stock (warehouse_id);
CREATE TABLE coupons (
  id bigserial PRIMARY KEY,
  code text NOT NULL UNIQUE,
  percent_off smallint NOT NULL CHECK (percent_off BETWEEN 1 AND 100),
  valid_until date
);
CREATE TABLE staff_users (
  id bigserial PRIMARY KEY,
  email text NOT NULL UNIQUE,
  name text NOT NULL,
  is_admin boolean NOT NULL DEFAULT false
);
CREATE TABLE customers (
  id bigserial PRIMARY KEY,
  country_id bigint NOT NULL REFERENCES countries (id),
  email text NOT NULL UNIQUE,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX customers_country_id ON customers (country_id);
CREATE TABLE addresses (
  id bigserial PRIMARY KEY,
  customer_id bigint NOT NULL REFERENCES customers (id),
  country_id bigint NOT NULL REFERENCES countries (id),
  line1 text NOT NULL,
  city text NOT NULL,
  postal_code text NOT NULL
);
CREATE INDEX addresses_customer_id ON addresses (customer_id);
CREATE TABLE carts (
  id bigserial PRIMARY KEY,
  customer_id bigint NOT NULL REFERENCES customers (id),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX carts_customer_id ON carts (customer_id);
CREATE TABLE cart_items (
  id bigserial PRIMARY KEY,
  cart_id bigint NOT NULL REFERENCES carts (id),
  product_id bigint NOT NULL REFERENCES products (id),
  quantity integer NOT NULL CHECK (quantity > 0)
);
CREATE INDEX cart_items_cart_id ON cart_items (cart_id);
CREATE INDEX cart_items_product_id ON cart_items (product_id);
CREATE TABLE orders (
  id bigserial PRIMARY KEY,
  customer_id bigint NOT NULL REFERENCES customers (id),
  currency_id bigint NOT NULL REFERENCES currencies (id),
  status text NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'paid', 'shipped', 'cancelled')),
  total numeric(12, 2),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX orders_customer_id ON orders (customer_id);
CREATE INDEX orders_status_created_at ON orders (status, created_at);
CREATE TABLE order_items (
  id bigserial PRIMARY KEY,
  order_id bigint NOT NULL REFERENCES orders (id),
  product_id bigint NOT NULL REFERENCES products (id),
  quantity integer NOT NULL CHECK (quantity > 0),
  unit_price numeric(12, 2) NOT NULL
);
CREATE INDEX order_items_order_id ON order_items (order_id);
CREATE INDEX order_items_product_id ON order_items (product_id);
CREATE TABLE order_coupons (
  id bigserial PRIMARY KEY,
  order_id bigint NOT NULL REFERENCES orders (id),
  coupon_id bigint NOT NULL REFERENCES coupons (id),
  UNIQUE (order_id, coupon_id)
);
CREATE TABLE payments (
  id bigserial PRIMARY KEY,
  order_id bigint NOT NULL REFERENCES orders (id),
  amount numeric(12, 2) NOT NULL,
  provider text NOT NULL,
  paid_at timestamptz
);
CREATE INDEX payments_order_id ON payments (order_id);
CREATE TABLE shipments (
  id bigserial PRIMARY KEY,
  order_id bigint NOT NULL REFERENCES orders (id),
  warehouse_id bigint NOT NULL REFERENCES warehouses (id),
  shipped_at timestamptz
);
CREATE INDEX shipments_order_id ON shipments (order_id);
CREATE TABLE shipment_items (
  id bigserial PRIMARY KEY,
  shipment_id bigint NOT NULL REFERENCES shipments (id),
  order_item_id bigint NOT NULL REFERENCES order_items (id),
  quantity integer NOT NULL
);
CREATE INDEX shipment_items_shipment_id ON shipment_items (shipment_id);
CREATE INDEX shipment_items_order_item_id ON shipment_items (order_item_id);
CREATE TABLE reviews (
  id bigserial PRIMARY KEY,
  product_id bigint NOT NULL REFERENCES products (id),
  customer_id bigint NOT NULL REFERENCES customers (id),
  rating smallint NOT NULL CHECK (rating BETWEEN 1 AND 5),
  body text
);
CREATE INDEX reviews_product_id ON reviews (product_id);
CREATE INDEX reviews_customer_id ON reviews (customer_id);
CREATE TABLE audit_log (
  id bigserial PRIMARY KEY,
  staff_user_id bigint REFERENCES staff_users (id),
  entity text NOT NULL,
  entity_id bigint NOT NULL,
  action text NOT NULL,
  data jsonb NOT NULL DEFAULT '{}',
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_entity ON audit_log (entity, entity_id);

INSERT INTO countries (code, name) VALUES ('DE', 'Germany'), ('FR', 'France'), ('GB', 'United Kingdom'), ('US', 'United States'), ('JP', 'Japan');
INSERT INTO currencies (code, decimals) VALUES ('EUR', 2), ('GBP', 2), ('USD', 2), ('JPY', 0);
INSERT INTO categories (parent_id, name, slug) VALUES (NULL, 'Books', 'books'), (NULL, 'Music', 'music'), (NULL, 'Tools', 'tools');
INSERT INTO categories (parent_id, name, slug) VALUES (1, 'Novels', 'novels'), (1, 'Reference', 'reference'), (3, 'Hand tools', 'hand-tools');
INSERT INTO products (category_id, currency_id, sku, name, price, attributes)
SELECT 1 + g % 6, 1 + g % 3, 'SKU-' || lpad(g::text, 5, '0'), 'Product ' || g, round((1 + g * 1.37)::numeric, 2), jsonb_build_object('weight_g', 100 + g)
FROM generate_series(1, 50) AS g;
INSERT INTO warehouses (country_id, name) VALUES (1, 'Berlin'), (4, 'Newark');
INSERT INTO stock (product_id, warehouse_id, quantity) SELECT p.id, w.id, 10 + p.id % 7 FROM products p CROSS JOIN warehouses w;
INSERT INTO coupons (code, percent_off, valid_until) VALUES ('WELCOME10', 10, NULL), ('SPRING20', 20, '2030-06-01'), ('STAFF50', 50, NULL);
INSERT INTO staff_users (email, name, is_admin) VALUES ('admin@example.com', 'Admin', true), ('support@example.com', 'Support', false);
