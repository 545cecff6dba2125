-- Core tables of the saga orchestrator (DESIGN.md section 3).
-- States are text with CHECK constraints so a bad write fails loudly in the database too.

CREATE TABLE orders (
    order_id     uuid        PRIMARY KEY,
    customer_id  text        NOT NULL CHECK (length(customer_id) BETWEEN 1 AND 64),
    currency     text        NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    total_cents  bigint      NOT NULL CHECK (total_cents >= 0),
    lines        jsonb       NOT NULL,
    status       text        NOT NULL CHECK (status IN ('PENDING_CONFIRMATION', 'AWAITING_PAYMENT',
                     'PAYMENT_UNKNOWN', 'COMPENSATING', 'CONFIRMED', 'CANCELLED', 'REJECTED')),
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX orders_status_created_idx ON orders (status, created_at DESC);
CREATE INDEX orders_created_idx ON orders (created_at DESC);

-- One row per running or finished saga. `version` is the optimistic lock: every update is
-- `... WHERE saga_id = ? AND version = ?` and bumps it.
CREATE TABLE saga_instance (
    saga_id          uuid        PRIMARY KEY,
    saga_type        text        NOT NULL CHECK (saga_type ~ '^[a-z][a-z0-9_-]{0,63}$'),
    status           text        NOT NULL CHECK (status IN ('RUNNING', 'AWAITING_REPLY', 'PARKED',
                         'COMPENSATING', 'COMPLETED', 'COMPENSATED', 'FAILED')),
    step             text        NOT NULL CHECK (step ~ '^[A-Z][A-Z0-9_]{0,63}$'),
    label            text        NOT NULL CHECK (label ~ '^[A-Z][A-Z0-9_]{0,63}$'),
    version          integer     NOT NULL DEFAULT 0,
    data             jsonb       NOT NULL,
    parked_on        text,
    park_reason      text,
    park_count       integer     NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz,
    expires_at       timestamptz,
    step_deadline_at timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    -- Forward work parks as PARKED; a compensation that waits for a dependency stays COMPENSATING.
    CHECK (parked_on IS NULL OR status IN ('PARKED', 'COMPENSATING')),
    CHECK (status <> 'PARKED' OR parked_on IS NOT NULL)
);
CREATE INDEX saga_parked_idx ON saga_instance (parked_on, created_at) WHERE parked_on IS NOT NULL;
-- Work that is due: a step to (re)run, a lease that ran out after a crash.
CREATE INDEX saga_due_idx ON saga_instance (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX saga_label_idx ON saga_instance (saga_type, label);
CREATE INDEX saga_expires_idx ON saga_instance (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX saga_step_deadline_idx ON saga_instance (step_deadline_at) WHERE step_deadline_at IS NOT NULL;

-- Append-only: every transition of every saga, with the time and the reason.
CREATE TABLE saga_history (
    id       bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    saga_id  uuid        NOT NULL REFERENCES saga_instance (saga_id),
    status   text        NOT NULL,
    step     text        NOT NULL,
    label    text        NOT NULL,
    reason   text,
    at       timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX saga_history_saga_idx ON saga_history (saga_id, id);

-- Transactional outbox: written in the saga's transaction, moved to Kafka by the relay,
-- deleted once acknowledged. `shard` spreads aggregates over relay leases; all rows of one
-- aggregate share a shard, so one relay at a time publishes them, in id order.
CREATE TABLE outbox (
    id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    aggregate_id    text        NOT NULL,
    shard           smallint    NOT NULL GENERATED ALWAYS AS ((abs(hashtext(aggregate_id)) % 64)::smallint) STORED,
    topic           text        NOT NULL,
    message_id      uuid        NOT NULL,
    message_type    text        NOT NULL,
    correlation_id  text,
    payload         text        NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX outbox_shard_id_idx ON outbox (shard, id);

-- Consumed message ids per consumer, inserted in the same transaction as the effect.
CREATE TABLE inbox (
    consumer     text        NOT NULL,
    message_id   uuid        NOT NULL,
    received_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, message_id)
);

-- HTTP Idempotency-Key records (DESIGN.md section 5): kept 24 h, then deleted by a job.
CREATE TABLE idempotency_keys (
    idem_key         text        PRIMARY KEY CHECK (length(idem_key) BETWEEN 1 AND 255),
    request_hash     text        NOT NULL,
    state            text        NOT NULL CHECK (state IN ('IN_FLIGHT', 'COMPLETED')),
    response_status  integer,
    response_body    text,
    order_id         uuid,
    created_at       timestamptz NOT NULL DEFAULT now(),
    expires_at       timestamptz NOT NULL
);
CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);
