-- Issue 12, docs/decisions/0019-fewer-rows-per-order.md: fewer rows written per order.

-- The Idempotency-Key is written once, when it is claimed: a repeated key is answered from what the
-- order's saga stored when the submission resolved, so no statement looks a key up by its order any
-- more (the transition used to complete the key by order id). One index fewer on every claim.
DROP INDEX IF EXISTS idempotency_keys_order_idx;

-- The `orders` read model becomes a view of the order sagas: the saga row already holds the order
-- (its data), its customer-visible status (its label) and its times, and it is written on every
-- transition anyway. Keeping a table in step cost an insert and an update per status change, each
-- copying the order's lines. What the table had that the saga row lacked: when the status last
-- changed (a saga also moves without changing its label: a parked retry, a resent command).
ALTER TABLE saga_instance ADD COLUMN label_at timestamptz;
UPDATE saga_instance s SET label_at = o.updated_at FROM orders o WHERE o.order_id = s.saga_id;
UPDATE saga_instance SET label_at = updated_at WHERE label_at IS NULL;
ALTER TABLE saga_instance ALTER COLUMN label_at SET DEFAULT now(), ALTER COLUMN label_at SET NOT NULL;

-- The table's check on the status, kept on the saga rows of orders.
ALTER TABLE saga_instance ADD CONSTRAINT saga_order_label_check CHECK (saga_type <> 'order' OR label IN
    ('PENDING_CONFIRMATION', 'AWAITING_PAYMENT', 'PAYMENT_UNKNOWN', 'COMPENSATING', 'CONFIRMED', 'CANCELLED',
     'REJECTED'));

DROP TABLE orders;
CREATE VIEW orders AS
    SELECT saga_id                          AS order_id,
           data ->> 'customerId'            AS customer_id,
           data ->> 'currency'              AS currency,
           (data ->> 'totalCents')::bigint  AS total_cents,
           data -> 'lines'                  AS lines,
           label                            AS status,
           created_at,
           label_at                         AS updated_at
    FROM saga_instance
    WHERE saga_type = 'order';

-- The table's indexes (V1, V7, V9), on the order sagas: by status, by creation time, by customer,
-- open orders by the time their status last changed.
CREATE INDEX saga_order_status_created_idx ON saga_instance (label, created_at DESC) WHERE saga_type = 'order';
CREATE INDEX saga_order_created_idx ON saga_instance (created_at DESC) WHERE saga_type = 'order';
CREATE INDEX saga_order_customer_created_idx ON saga_instance ((data ->> 'customerId'), created_at)
    WHERE saga_type = 'order';
CREATE INDEX saga_order_customer_idx ON saga_instance ((data ->> 'customerId'), label, created_at DESC)
    WHERE saga_type = 'order';
CREATE INDEX saga_order_open_label_at_idx ON saga_instance (label_at)
    WHERE saga_type = 'order'
      AND label IN ('PENDING_CONFIRMATION', 'AWAITING_PAYMENT', 'PAYMENT_UNKNOWN', 'COMPENSATING');

-- One outbox row per transaction and aggregate: a transition's messages for one order (the charge
-- command and the status event; the status event and the customer's notice) share a row, so one
-- insert and one relay delete stand for all of them. The row's own columns hold its first message;
-- `more` the following ones, four texts each: topic, message id, message type, payload. The relay
-- publishes them in that order, with the row's key and correlation id.
ALTER TABLE outbox ADD COLUMN more text[] CHECK (more IS NULL OR (cardinality(more) > 0 AND cardinality(more) % 4 = 0));
ALTER TABLE outbox_dead_letter ADD COLUMN more text[];

-- Every message waiting in the outbox, a row's further messages included, for readers that look
-- for a kind of message (the payment reconciler, the operator's saga view, tests).
CREATE VIEW outbox_message AS
    SELECT o.id, 0 AS part, o.shard, o.aggregate_id, o.topic, o.message_id, o.message_type, o.correlation_id,
           o.payload, o.created_at
    FROM outbox o
    UNION ALL
    SELECT o.id, i AS part, o.shard, o.aggregate_id, o.more[4 * i - 3], o.more[4 * i - 2]::uuid, o.more[4 * i - 1],
           o.correlation_id, o.more[4 * i], o.created_at
    FROM outbox o CROSS JOIN LATERAL generate_series(1, cardinality(o.more) / 4) AS i
    WHERE o.more IS NOT NULL;
