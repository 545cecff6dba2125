-- Incidents (DESIGN.md section 8a): a saga that cannot go on without an operator is marked with
-- a typed cause, when and why. The saga keeps its status (its order a truthful one); the mark is
-- cleared when an operator acts on it. Causes are a CHECK list, like every state here.
ALTER TABLE saga_instance
    ADD COLUMN incident_cause  text CHECK (incident_cause IN ('PARTICIPANT_REFUSED', 'PAYMENT_UNRESOLVED',
        'COMMAND_DEAD_LETTERED', 'POISON_REPLY', 'STEP_FAILED')),
    ADD COLUMN incident_detail text,
    ADD COLUMN incident_at     timestamptz,
    ADD CHECK ((incident_cause IS NULL) = (incident_at IS NULL));
CREATE INDEX saga_incident_idx ON saga_instance (incident_cause, incident_at) WHERE incident_cause IS NOT NULL;
