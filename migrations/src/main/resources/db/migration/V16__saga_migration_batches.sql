-- Operator batches that move live orders to another saga definition version (docs/design.md,
-- "Moving orders to another version"): the action 'migrate', the version a batch moves to, and the
-- audit rows of each move.
ALTER TABLE admin_batch DROP CONSTRAINT admin_batch_action_check;
ALTER TABLE admin_batch ADD CONSTRAINT admin_batch_action_check CHECK (action IN ('retry', 'cancel', 'migrate'));
ALTER TABLE admin_batch ADD COLUMN to_version integer CHECK (to_version >= 1);
ALTER TABLE admin_batch ADD CONSTRAINT admin_batch_migrate_to_version CHECK ((action = 'migrate') = (to_version IS NOT NULL));

ALTER TABLE admin_audit DROP CONSTRAINT admin_audit_action_check;
ALTER TABLE admin_audit ADD CONSTRAINT admin_audit_action_check CHECK (action IN ('retry', 'cancel', 'payment-outcome',
    'batch-start', 'batch-stop', 'outbox-replay', 'outbox-discard', 'kafka-redrive', 'migrate'));
