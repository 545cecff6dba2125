-- Outbox relay: dead letters and maintenance of the queue table (docs/decisions/0010-0012).
-- Writers are untouched: they still insert (aggregate_id, topic, message_id, message_type,
-- correlation_id, payload) into outbox.

-- A row the broker refuses for good (too large, invalid) moves here with the error. It keeps its
-- outbox id, so a replay puts it back exactly where it was, ahead of its aggregate's later rows.
-- While an aggregate has a row here, the relay holds back that aggregate's later outbox rows.
CREATE TABLE outbox_dead_letter (
    id              bigint      PRIMARY KEY,
    aggregate_id    text        NOT NULL,
    topic           text        NOT NULL,
    message_id      uuid        NOT NULL,
    message_type    text        NOT NULL,
    correlation_id  text,
    payload         text        NOT NULL,
    created_at      timestamptz NOT NULL,
    failed_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    error           text        NOT NULL,
    relay_instance  text        NOT NULL
);
CREATE INDEX outbox_dead_letter_aggregate_idx ON outbox_dead_letter (aggregate_id);

-- The outbox is a queue: rows live for milliseconds and are deleted once acknowledged. Vacuum it
-- after a fixed number of dead rows rather than a fraction of a (tiny) table, without throttling.
-- The relay also vacuums it itself, since autovacuum visits a database at most once a minute.
ALTER TABLE outbox SET (
    autovacuum_vacuum_scale_factor = 0.0,
    autovacuum_vacuum_threshold = 5000,
    autovacuum_vacuum_cost_delay = 0,
    autovacuum_analyze_scale_factor = 0.0,
    autovacuum_analyze_threshold = 50000
);
