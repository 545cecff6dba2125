-- Traces through the outbox (issue 17, docs/decisions/0018-traces-through-the-outbox.md).
-- The W3C traceparent of the work that wrote a row, when tracing is on; NULL when it is off (the
-- default), so an untraced product writes exactly what it wrote before. Nullable columns without
-- a default: adding them rewrites nothing, and no index is needed (nothing searches by them).

-- Copied by the relay into the Kafka header "traceparent" of the published record.
ALTER TABLE outbox ADD COLUMN traceparent text;
-- Kept with a dead letter, so a replayed row still continues its trace.
ALTER TABLE outbox_dead_letter ADD COLUMN traceparent text;
-- The trace that created the saga: a saga resumed later (a parked order) starts a new trace
-- linked to this one.
ALTER TABLE saga_instance ADD COLUMN traceparent text;
