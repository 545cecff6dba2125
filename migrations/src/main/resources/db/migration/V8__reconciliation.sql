-- Reconciliation (DESIGN.md section 9b, docs/decisions/0015-reconciliation-findings-store.md).

-- 1. The sandbox participants' ledgers become change feeds: GET /charges?since= and
-- GET /reservations?since= list rows changed after a cursor, in an order that never lets a row
-- committed later slip in behind the cursor. Each write stamps its row with its transaction id and a
-- sequence number; a listing returns only rows whose transaction ended before the oldest one still
-- running (pg_snapshot_xmin), ordered by (transaction id, sequence): no row can appear below that
-- bound afterwards, so a reader that resumes after its last row neither skips nor repeats.
CREATE SEQUENCE sandbox.ledger_change_seq;

CREATE FUNCTION sandbox.stamp_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.change_xid := pg_current_xact_id();
    NEW.change_seq := nextval('sandbox.ledger_change_seq');
    RETURN NEW;
END
$$;

ALTER TABLE sandbox.charge ADD COLUMN change_xid xid8, ADD COLUMN change_seq bigint;
CREATE TRIGGER charge_change BEFORE INSERT OR UPDATE ON sandbox.charge
    FOR EACH ROW EXECUTE FUNCTION sandbox.stamp_change();
UPDATE sandbox.charge SET status = status;
ALTER TABLE sandbox.charge ALTER COLUMN change_xid SET NOT NULL, ALTER COLUMN change_seq SET NOT NULL;
CREATE INDEX charge_change_idx ON sandbox.charge (change_xid, change_seq);

ALTER TABLE sandbox.reservation ADD COLUMN change_xid xid8, ADD COLUMN change_seq bigint;
CREATE TRIGGER reservation_change BEFORE INSERT OR UPDATE ON sandbox.reservation
    FOR EACH ROW EXECUTE FUNCTION sandbox.stamp_change();
UPDATE sandbox.reservation SET status = status;
ALTER TABLE sandbox.reservation ALTER COLUMN change_xid SET NOT NULL, ALTER COLUMN change_seq SET NOT NULL;
CREATE INDEX reservation_change_idx ON sandbox.reservation (change_xid, change_seq);

-- 2. Where the reconciler's ledger puller stands in each participant's feed. The position moves
-- only after the page it covers is acknowledged by Kafka: a crash in between re-sends that page
-- (the same rows, the same versions: the topology counts each version once), never skips one.
CREATE TABLE reconciler_feed_position (
    feed        text        PRIMARY KEY CHECK (feed IN ('charges', 'reservations')),
    position    text        NOT NULL,
    rows_pulled bigint      NOT NULL DEFAULT 0,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- 3. Findings, filled from reconciliation.findings (one row per finding; its id is derived from
-- kind, order and subject, so a finding seen again is the same row and repaired once).
CREATE TABLE reconciliation_finding (
    finding_id   uuid        PRIMARY KEY,
    kind         text        NOT NULL CHECK (kind IN ('CHARGED_NOT_CONFIRMED', 'CONFIRMED_NOT_CHARGED',
                     'CHARGE_WITHOUT_REPLY', 'RESERVED_NOT_ORDERED', 'AMOUNT_MISMATCH')),
    state        text        NOT NULL CHECK (state IN ('OPEN', 'RESOLVED')),
    order_id     text        NOT NULL,
    subject      text        NOT NULL,
    detail       text        NOT NULL,
    action       text        NOT NULL CHECK (action IN ('REFUND', 'RELEASE', 'NONE')),
    repair_key   text,
    repair       text        NOT NULL CHECK (repair IN ('REQUESTED', 'SKIPPED', 'NONE')),
    opened_at    timestamptz NOT NULL,
    resolved_at  timestamptz,
    updated_at   timestamptz NOT NULL DEFAULT now(),
    CHECK ((state = 'RESOLVED') = (resolved_at IS NOT NULL))
);
CREATE INDEX reconciliation_finding_list_idx ON reconciliation_finding (kind, state, opened_at DESC);
CREATE INDEX reconciliation_finding_order_idx ON reconciliation_finding (order_id);
