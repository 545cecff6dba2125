-- Versioned saga definitions (docs/decisions/0025-versioned-saga-definitions.md): each instance runs the
-- version of its definition it started on, to its end, whatever a later deploy registers as the default.
-- Every instance so far ran the only definition there was: version 1. A constant default adds the
-- column without rewriting the table; the `orders` view and its partial indexes do not read it.
ALTER TABLE saga_instance ADD COLUMN definition_version integer NOT NULL DEFAULT 1
    CHECK (definition_version >= 1);
