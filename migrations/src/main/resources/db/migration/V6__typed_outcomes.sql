-- Typed participant outcomes and incidents (issue 11, DESIGN.md section 8a,
-- docs/decisions/0014-typed-participant-outcomes-and-incidents.md).

-- completed_steps: how many forward steps were done before the saga turned back; a saga that
--   undid nothing but its own failed step ends FAILED, not COMPENSATED.
-- step_retries: how often the current step was tried again after it threw (bounded, then the
--   STEP_FAILED incident), or its command sent again (bounded, then PAYMENT_UNRESOLVED).
-- cause_code / cause_detail: why the saga left its forward path (out_of_stock, expired, ...),
--   kept to its end so the end says why, not "compensated".
ALTER TABLE saga_instance
    ADD COLUMN completed_steps integer NOT NULL DEFAULT 0 CHECK (completed_steps >= 0),
    ADD COLUMN step_retries    integer NOT NULL DEFAULT 0 CHECK (step_retries >= 0),
    ADD COLUMN cause_code      text CHECK (cause_code ~ '^[a-z][a-z0-9_]{0,63}$'),
    ADD COLUMN cause_detail    text;

-- Sagas in flight now: those waiting for a reply or undoing are past a first step they did.
UPDATE saga_instance SET completed_steps = 1 WHERE status IN ('AWAITING_REPLY', 'COMPENSATING');

-- Customers see reason_code (a stable code); reason keeps the detail for operators and logs.
-- Older rows have no code: their reason is shown as it was.
ALTER TABLE saga_history ADD COLUMN reason_code text CHECK (reason_code ~ '^[a-z][a-z0-9_]{0,63}$');

-- The transition that settles a submission completes its Idempotency-Key by order id, whoever
-- runs it (the request, or a saga-worker after the request's process died).
CREATE INDEX idempotency_keys_order_idx ON idempotency_keys (order_id);

-- Inbox retention deletes by age in small batches. BRIN: rows arrive in time order, and a BRIN
-- index costs next to nothing on the consumers' inserts.
CREATE INDEX inbox_received_brin ON inbox USING brin (received_at);
