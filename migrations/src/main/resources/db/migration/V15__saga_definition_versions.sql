-- Versioned saga definitions (docs/decisions/0025-versioned-saga-definitions.md): each instance runs the
-- version of its definition it started on, to its end, whatever a later deploy registers as the default.
-- Every instance so far ran the only definition there was: version 1. A constant default adds the
-- column without rewriting the table; the `orders` view and its partial indexes do not read it.
ALTER TABLE saga_instance ADD COLUMN definition_version integer NOT NULL DEFAULT 1
    CHECK (definition_version >= 1);

-- What the running processes know: one row per process and (saga type, definition version) it has,
-- refreshed by each process's heartbeat. A process refuses to start while live instances run a version
-- that neither it nor a process with a recent heartbeat knows; stale rows do not count and are deleted.
CREATE TABLE saga_definition_host (
    process_id         uuid        NOT NULL,
    saga_type          text        NOT NULL CHECK (saga_type ~ '^[a-z][a-z0-9_-]{0,63}$'),
    definition_version integer     NOT NULL CHECK (definition_version >= 1),
    heartbeat_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (process_id, saga_type, definition_version)
);
