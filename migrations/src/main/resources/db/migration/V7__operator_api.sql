-- The operator API (DESIGN.md section 9a): its audit trail, its batches, and the indexes its
-- saga list needs so that no filter reads a whole table.

-- Every write an operator asks for, whatever became of it: who (the token's name and role), what,
-- on what, why, when and the outcome. A batch's own actions carry its id, once per saga: the
-- unique index is what makes a batch resumed after a crash skip what it already did.
CREATE TABLE admin_audit (
    id        bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    actor     text        NOT NULL CHECK (length(actor) BETWEEN 1 AND 100),
    role      text        NOT NULL CHECK (role IN ('viewer', 'operator')),
    action    text        NOT NULL CHECK (action IN ('retry', 'cancel', 'payment-outcome', 'batch-start',
                  'batch-stop', 'outbox-replay', 'outbox-discard', 'kafka-redrive')),
    target    text        NOT NULL CHECK (length(target) BETWEEN 1 AND 300),
    reason    text        CHECK (length(reason) <= 1000),
    outcome   text        NOT NULL CHECK (outcome IN ('APPLIED', 'REFUSED', 'CONFLICT', 'NOT_FOUND', 'FORBIDDEN',
                  'FAILED')),
    detail    text,
    batch_id  uuid
);
-- GET /admin/audit filters: by target (one order's trail), by actor, by action, by batch.
CREATE INDEX admin_audit_target_idx ON admin_audit (target, id);
CREATE INDEX admin_audit_actor_idx ON admin_audit (actor, id);
CREATE INDEX admin_audit_action_idx ON admin_audit (action, id);
CREATE UNIQUE INDEX admin_audit_batch_target_idx ON admin_audit (batch_id, target) WHERE batch_id IS NOT NULL;

-- A batch: one action over every saga a filter matched when it was created (created_at up to
-- snapshot_at), walked in (created_at, saga id) order from a persisted cursor at a paced rate.
-- A process runs it under a lease; when that process dies another takes it over where it was.
CREATE TABLE admin_batch (
    batch_id            uuid        PRIMARY KEY,
    action              text        NOT NULL CHECK (action IN ('retry', 'cancel')),
    filter              jsonb       NOT NULL,
    reason              text        CHECK (length(reason) BETWEEN 1 AND 1000),
    actor               text        NOT NULL CHECK (length(actor) BETWEEN 1 AND 100),
    max_rate            double precision NOT NULL CHECK (max_rate > 0 AND max_rate <= 1000),
    state               text        NOT NULL CHECK (state IN ('RUNNING', 'STOPPED', 'COMPLETED', 'FAILED')),
    matched             integer     NOT NULL CHECK (matched >= 0),
    snapshot_at         timestamptz NOT NULL,
    cursor_created_at   timestamptz,
    cursor_id           uuid,
    runner              text,
    lease_until         timestamptz,
    error               text,
    created_at          timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at          timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at         timestamptz,
    CHECK ((cursor_created_at IS NULL) = (cursor_id IS NULL)),
    CHECK ((state = 'RUNNING') = (finished_at IS NULL))
);
-- Batches to run (or take over): few, found through a partial index.
CREATE INDEX admin_batch_running_idx ON admin_batch (lease_until) WHERE state = 'RUNNING';
-- GET /admin/batches?state=
CREATE INDEX admin_batch_state_created_idx ON admin_batch (state, created_at);
CREATE INDEX admin_batch_created_idx ON admin_batch (created_at);

-- GET /admin/sagas filters. Status and creation time use orders_status_created_idx and
-- orders_created_idx (V1), parked-on saga_parked_idx (V1), incident saga_incident_idx (V5), the
-- idempotency key the key's primary key. What was missing:
-- customerId: a customer's orders, newest first.
CREATE INDEX orders_customer_created_idx ON orders (customer_id, created_at);
-- stuckForSeconds: open orders by the time their status last changed. Partial: terminal orders,
-- the vast majority, cost nothing here.
CREATE INDEX orders_open_updated_idx ON orders (updated_at)
    WHERE status IN ('PENDING_CONFIRMATION', 'AWAITING_PAYMENT', 'PAYMENT_UNKNOWN', 'COMPENSATING');
-- step: the step a live saga is at. Partial for the same reason: a step names where work is.
CREATE INDEX saga_open_step_idx ON saga_instance (step, created_at)
    WHERE status IN ('RUNNING', 'AWAITING_REPLY', 'PARKED', 'COMPENSATING');
