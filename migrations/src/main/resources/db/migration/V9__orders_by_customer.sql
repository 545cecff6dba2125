-- Issue 16: with API keys a client reads only its customers' orders (GET /orders filters by
-- customer), and during an outage each submission counts its client's orders pending
-- confirmation (the per-client share of the pending cap). One index serves both: by customer,
-- then status, newest first.
CREATE INDEX orders_customer_idx ON orders (customer_id, status, created_at DESC);
