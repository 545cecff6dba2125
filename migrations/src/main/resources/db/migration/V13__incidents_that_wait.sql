-- Two more incident causes: a compensation that waits on its participant too long (it is still
-- retried; the incident makes it visible) and a reconciliation repair that could not be done.
ALTER TABLE saga_instance DROP CONSTRAINT saga_instance_incident_cause_check;
ALTER TABLE saga_instance ADD CONSTRAINT saga_instance_incident_cause_check CHECK (incident_cause IN (
    'PARTICIPANT_REFUSED', 'PAYMENT_UNRESOLVED', 'COMMAND_DEAD_LETTERED', 'POISON_REPLY', 'STEP_FAILED',
    'COMPENSATION_STALLED', 'REPAIR_FAILED'));
