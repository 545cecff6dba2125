-- State of the sandbox inventory and payment provider (DESIGN.md section 9). They play services
-- outside the product, so they live in a schema of their own that no orchestrator table refers to.
-- Keys are the callers' idempotency keys: a primary key on each makes a replay, even a concurrent
-- one, find the first answer instead of doing the work twice.

CREATE SCHEMA sandbox;

-- What can still be reserved, per SKU. Reserving subtracts, releasing adds back.
CREATE TABLE sandbox.stock (
    sku         text        PRIMARY KEY CHECK (length(sku) BETWEEN 1 AND 64),
    available   integer     NOT NULL CHECK (available >= 0),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- One row per reservation key. OUT_OF_STOCK rows keep the refusal so a replay answers the same.
-- A RELEASED row without lines is a tombstone: its release arrived before the reservation, and the
-- row makes that late reservation a no-op.
CREATE TABLE sandbox.reservation (
    reservation_key  text        PRIMARY KEY CHECK (length(reservation_key) BETWEEN 1 AND 255),
    order_id         text        NOT NULL CHECK (length(order_id) BETWEEN 1 AND 100),
    status           text        NOT NULL CHECK (status IN ('RESERVED', 'RELEASED', 'OUT_OF_STOCK')),
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX reservation_order_idx ON sandbox.reservation (order_id, created_at);

-- What a reservation asked for, one row per SKU (duplicate SKUs of a request are summed).
CREATE TABLE sandbox.reservation_line (
    reservation_key  text    NOT NULL REFERENCES sandbox.reservation (reservation_key),
    sku              text    NOT NULL CHECK (length(sku) BETWEEN 1 AND 64),
    quantity         integer NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (reservation_key, sku)
);
CREATE INDEX reservation_line_sku_idx ON sandbox.reservation_line (sku);

-- Release requests by their own idempotency key, so a repeated release is answered, not re-run.
-- The key is claimed first, before the tombstone it may refer to exists: hence the deferred check.
CREATE TABLE sandbox.release_request (
    release_key      text        PRIMARY KEY CHECK (length(release_key) BETWEEN 1 AND 255),
    reservation_key  text        NOT NULL REFERENCES sandbox.reservation (reservation_key)
                                 DEFERRABLE INITIALLY DEFERRED,
    created_at       timestamptz NOT NULL DEFAULT now()
);

-- The payment provider's ledger: one row per charge key, whatever the outcome.
CREATE TABLE sandbox.charge (
    idempotency_key  text        PRIMARY KEY CHECK (length(idempotency_key) BETWEEN 1 AND 255),
    order_id         text        NOT NULL CHECK (length(order_id) BETWEEN 1 AND 100),
    amount_cents     bigint      NOT NULL CHECK (amount_cents >= 0),
    currency         text        NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    status           text        NOT NULL CHECK (status IN ('CAPTURED', 'DECLINED', 'REFUNDED')),
    created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at       timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX charge_order_idx ON sandbox.charge (order_id, created_at);

-- Refund requests by their own idempotency key.
CREATE TABLE sandbox.refund_request (
    refund_key   text        PRIMARY KEY CHECK (length(refund_key) BETWEEN 1 AND 255),
    charge_key   text        NOT NULL REFERENCES sandbox.charge (idempotency_key),
    created_at   timestamptz NOT NULL DEFAULT now()
);
