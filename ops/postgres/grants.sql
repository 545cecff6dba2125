-- What each product role may do with the product's tables (docs/security.md, "Deployment"): the
-- statements its code runs, no more. Run as the schema's owner after every migration (tables exist
-- only then): `./sagas migrate` with SAGA_DB_GRANTS=on (compose's migrate service) and
-- `./sagas cluster` apply it. Idempotent: everything is revoked first, then granted again.
-- No sequence grant: the only sequences are identity columns', which an INSERT uses without one.
-- Advisory locks, pg_locks and pg_stat_user_tables need no grant.

REVOKE ALL ON ALL TABLES IN SCHEMA public
    FROM sagas_app, sagas_api, sagas_saga_worker, sagas_relay, sagas_payment_worker, sagas_reconciler;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public
    FROM sagas_app, sagas_api, sagas_saga_worker, sagas_relay, sagas_payment_worker, sagas_reconciler;
-- An older init-roles.sql gave every future table to sagas_app: no table is granted unless named here.
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON TABLES FROM sagas_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON SEQUENCES FROM sagas_app;

-- Every process: the schema's version (a role with SAGA_DB_MIGRATE=off checks it is current), and
-- the order and incident gauges each process refreshes (Node: order-gauges, incident-gauges).
GRANT SELECT ON flyway_schema_history, saga_instance, orders TO sagas_app;

-- api: submissions run the engine (a saga started, advanced, or withdrawn with its history and
-- key), the Idempotency-Key claims, the order reads; and the operator API: audit, batches, a
-- payment outcome set through the inbox, the outbox's dead letters replayed or discarded, the
-- backlog and the reconciler's findings shown (read only). A customer's cancel completes its key
-- with its answer (an upsert: UPDATE too); orders.commands records each command in the inbox.
GRANT INSERT, UPDATE, DELETE ON saga_instance TO sagas_api;
GRANT SELECT, INSERT, DELETE ON saga_history TO sagas_api;
GRANT SELECT, INSERT, UPDATE, DELETE ON idempotency_keys TO sagas_api;
GRANT SELECT, INSERT ON outbox, inbox, admin_audit TO sagas_api;
GRANT SELECT, INSERT, UPDATE ON admin_batch TO sagas_api;
GRANT SELECT, DELETE ON outbox_dead_letter TO sagas_api;
GRANT SELECT ON outbox_message, reconciliation_finding TO sagas_api;

-- saga-worker: replies through the inbox, timeouts, expiry, paced resumes; and the retention job,
-- which deletes what has aged out of the inbox, the keys, ended sagas, audit, batches and findings.
GRANT UPDATE, DELETE ON saga_instance TO sagas_saga_worker;
GRANT SELECT, INSERT, DELETE ON saga_history, inbox TO sagas_saga_worker;
GRANT INSERT ON outbox TO sagas_saga_worker;
GRANT SELECT, DELETE ON idempotency_keys, admin_audit, admin_batch, reconciliation_finding TO sagas_saga_worker;

-- The processes that run the engine (api, saga-worker, reconciler) record which saga versions they
-- have, with a heartbeat, and check at start that no live instance runs a version none has
-- (docs/decisions/0025-versioned-saga-definitions.md).
GRANT SELECT, INSERT, UPDATE, DELETE ON saga_definition_host TO sagas_api, sagas_saga_worker, sagas_reconciler;

-- relay: publishes the outbox and deletes what Kafka acknowledged, moves a refused row to the
-- dead letters; reads neither a saga's data beyond the gauges nor any key.
GRANT SELECT, DELETE ON outbox TO sagas_relay;
GRANT SELECT, INSERT ON outbox_dead_letter TO sagas_relay;

-- payment-worker: its replies go to the outbox (the relay publishes them); a dead-lettered command
-- marks its saga with an incident, and that only (the columns of SagaStore's incident update).
GRANT INSERT ON outbox TO sagas_payment_worker;
GRANT UPDATE (incident_cause, incident_detail, incident_at, version, updated_at) ON saga_instance
    TO sagas_payment_worker;
GRANT INSERT ON saga_history TO sagas_payment_worker;

-- reconciler: the payment reconciler resends commands and applies outcomes it looked up (through
-- the inbox) and raises incidents; the ledger puller keeps its feed positions; the finding sink
-- stores findings (once, through the inbox) and writes repairs to the outbox.
GRANT UPDATE ON saga_instance TO sagas_reconciler;
GRANT SELECT, INSERT ON saga_history, inbox TO sagas_reconciler;
GRANT INSERT ON outbox TO sagas_reconciler;
GRANT SELECT ON outbox_message TO sagas_reconciler;
GRANT SELECT, INSERT, UPDATE ON reconciler_feed_position, reconciliation_finding TO sagas_reconciler;

-- From PostgreSQL 17 the relay may VACUUM the outbox itself (docs/decisions/0012-outbox-relay-
-- deletes-and-vacuum.md); before, only the owner may, and the relay leaves it to autovacuum.
DO $$
BEGIN
    IF current_setting('server_version_num')::int >= 170000 THEN
        EXECUTE 'GRANT MAINTAIN ON outbox TO sagas_relay';
    END IF;
END
$$;
