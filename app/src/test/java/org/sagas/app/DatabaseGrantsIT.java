package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;
import org.sagas.migrations.Migrations;
import org.sagas.orchestrator.persistence.TableRetention;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * Each product role's PostgreSQL grants (ops/postgres/grants.sql, docs/security.md "Deployment")
 * suffice for what its code does and refuse the rest: on a database of its own, made as
 * {@code ./sagas cluster} makes it (the roles as the superuser, the schema migrated and the grants
 * applied as its owner), each role's statements either run or fail with insufficient_privilege.
 * Every statement runs in a transaction that is rolled back.
 */
@RealInfrastructure
class DatabaseGrantsIT {
    private static final String DATABASE = "grants_it";
    /** SQLSTATE insufficient_privilege: "permission denied for table ...". */
    private static final String DENIED = "42501";
    private static String url;
    private static DatabaseRoles roles;

    @BeforeAll
    static void migrateAndGrant(TestInfra infra, @TempDir Path dataDir) throws Exception {
        try (Connection c = infra.dataSource(1).getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + DATABASE + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + DATABASE);
        }
        url = infra.jdbcUrl().replaceFirst("/[^/?]+(\\?|$)", "/" + DATABASE + "$1");
        roles = DatabaseRoles.ensure(dataDir);
        try (Connection superuser = DriverManager.getConnection(url, infra.user(), infra.password())) {
            roles.create(superuser);
        }
        PGSimpleDataSource owner = new PGSimpleDataSource();
        owner.setUrl(url);
        owner.setUser(DatabaseRoles.OWNER);
        owner.setPassword(roles.password(DatabaseRoles.OWNER));
        Migrations.apply(owner);
        try (Connection c = owner.getConnection()) {
            DatabaseRoles.applyGrants(c);
        }
        // Again, as ./sagas migrate with SAGA_DB_GRANTS=on does after the next migration: the same grants
        Map<String, String> env = Map.of("SAGA_DB_URL", url, "SAGA_DB_USER", DatabaseRoles.OWNER,
                "SAGA_DB_PASSWORD", roles.password(DatabaseRoles.OWNER), "SAGA_DB_GRANTS", "on");
        Settings migrate = Settings.from(env::get, Map.of());
        assertThat(migrate.grants()).isTrue();
        DatabaseRoles.applyGrants(migrate);
    }

    @Test
    void shouldGrantEveryTableAndViewToSomeRoleAndNoRoleTheSchema() throws Exception {
        // Given the grants applied, when a relation of the schema is granted to no product role
        List<String> ungranted = new ArrayList<>();
        try (Connection c = connect("relay"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT c.relname FROM pg_class c JOIN pg_namespace n"
                        + " ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v', 'p')"
                        + " AND NOT EXISTS (SELECT 1 FROM unnest(ARRAY['sagas_api', 'sagas_saga_worker', 'sagas_relay',"
                        + " 'sagas_payment_worker', 'sagas_reconciler']) r WHERE has_any_column_privilege(r, c.oid,"
                        + " 'SELECT, INSERT, UPDATE') OR has_table_privilege(r, c.oid, 'DELETE'))")) {
            while (rs.next()) {
                ungranted.add(rs.getString(1));
            }
        }
        // Then there is none: a new migration's table fails here, not at run time
        assertThat(ungranted).isEmpty();
        for (String role : DatabaseRoles.PRODUCT_ROLES) {
            assertThat(denied(role, "CREATE TABLE sneaky (id int)")).as(role).isTrue();
            assertThat(denied(role, "TRUNCATE outbox")).as(role).isTrue();
            assertThat(denied(role, "ALTER TABLE saga_instance ADD COLUMN sneaky int")).as(role).isTrue();
        }
    }

    @Test
    void shouldLetTheRelayPublishAndDeadLetterButNotMoveASagaOrReadKeys() throws Exception {
        assertThat(denied("relay", "SELECT o.id, o.shard, o.payload, o.more FROM outbox o WHERE NOT EXISTS"
                + " (SELECT 1 FROM outbox_dead_letter d WHERE d.aggregate_id = o.aggregate_id) ORDER BY o.id LIMIT 10"))
                .isFalse();
        assertThat(denied("relay", "WITH moved AS (DELETE FROM outbox WHERE shard = 0 AND id = -1 RETURNING *)"
                + " INSERT INTO outbox_dead_letter (id, aggregate_id, topic, message_id, message_type, correlation_id,"
                + " payload, created_at, error, relay_instance, traceparent, more) SELECT id, aggregate_id, topic,"
                + " message_id, message_type, correlation_id, payload, created_at, 'too large', 'relay-1', traceparent,"
                + " more FROM moved")).isFalse();

        assertThat(denied("relay", "UPDATE saga_instance SET status = 'COMPLETED' WHERE saga_id = gen_random_uuid()"))
                .isTrue();
        assertThat(denied("relay", "SELECT count(*) FROM idempotency_keys")).isTrue();
        assertThat(denied("relay", "INSERT INTO outbox (aggregate_id, topic, message_id, message_type, payload)"
                + " VALUES ('o-1', 'payments.events', gen_random_uuid(), 'PaymentCaptured', '{}')")).isTrue();
        assertThat(denied("relay", "DELETE FROM outbox_dead_letter")).isTrue();
        assertThat(denied("relay", "SELECT count(*) FROM saga_definition_host")).isTrue();
    }

    @Test
    void shouldLetTheApiSubmitAndOperateButNotTouchTheReconcilersTables() throws Exception {
        // A submission: the key claimed, the saga and its history written, its messages in the outbox
        assertThat(denied("api", "WITH key AS (INSERT INTO idempotency_keys (client_scope, idem_key, request_hash,"
                + " state, order_id, created_at, expires_at) VALUES ('c-1', 'k-1', 'h', 'IN_FLIGHT', gen_random_uuid(),"
                + " now(), now() + interval '1 day') RETURNING order_id), saga AS (INSERT INTO saga_instance (saga_id,"
                + " saga_type, status, step, label, data) SELECT order_id, 'order', 'RUNNING', 'RESERVE_STOCK',"
                + " 'PENDING_CONFIRMATION', '{}' FROM key RETURNING saga_id) INSERT INTO saga_history (saga_id, status,"
                + " step, label) SELECT saga_id, 'RUNNING', 'RESERVE_STOCK', 'PENDING_CONFIRMATION' FROM saga")).isFalse();
        assertThat(denied("api", "INSERT INTO outbox (aggregate_id, topic, message_id, message_type, payload)"
                + " VALUES ('o-1', 'payments.commands', gen_random_uuid(), 'ChargePayment', '{}')")).isFalse();
        // Its engine's versions recorded with a heartbeat, the live ones read at start
        assertThat(denied("api", "INSERT INTO saga_definition_host (process_id, saga_type, definition_version)"
                + " VALUES (gen_random_uuid(), 'order', 1) ON CONFLICT (process_id, saga_type, definition_version)"
                + " DO UPDATE SET heartbeat_at = now()")).isFalse();
        // A customer's cancel completing its key with the answer (an upsert)
        assertThat(denied("api", "INSERT INTO idempotency_keys (client_scope, idem_key, request_hash, state, order_id,"
                + " response_status, response_body, created_at, expires_at) VALUES ('c-1', 'k-2', 'h', 'COMPLETED',"
                + " gen_random_uuid(), 200, '{}', now(), now() + interval '1 day') ON CONFLICT (idem_key, client_scope)"
                + " DO UPDATE SET state = 'COMPLETED' WHERE idempotency_keys.request_hash = EXCLUDED.request_hash"))
                .isFalse();
        // A withdrawn submission, the operator's audit, a batch, a dead letter discarded, the findings shown
        assertThat(denied("api", "WITH gone AS (DELETE FROM saga_instance WHERE saga_id = gen_random_uuid()"
                + " RETURNING saga_id) DELETE FROM saga_history WHERE saga_id IN (SELECT saga_id FROM gone)")).isFalse();
        assertThat(denied("api", "INSERT INTO admin_audit (actor, role, action, target, outcome)"
                + " VALUES ('ops', 'operator', 'retry', 'o-1', 'APPLIED')")).isFalse();
        assertThat(denied("api", "UPDATE admin_batch SET lease_until = now() WHERE state = 'RUNNING'")).isFalse();
        assertThat(denied("api", "DELETE FROM outbox_dead_letter WHERE id = -1")).isFalse();
        assertThat(denied("api", "SELECT kind, count(*) FROM reconciliation_finding WHERE state = 'OPEN' GROUP BY kind"))
                .isFalse();

        assertThat(denied("api", "SELECT position FROM reconciler_feed_position")).isTrue();
        assertThat(denied("api", "UPDATE reconciliation_finding SET state = 'RESOLVED'")).isTrue();
        assertThat(denied("api", "DELETE FROM outbox WHERE id = -1")).isTrue();
        assertThat(denied("api", "DELETE FROM inbox")).isTrue();
    }

    @Test
    void shouldLetTheSagaWorkerRunItsRetentionButNotStartASagaOrClaimAKey() throws Exception {
        // The retention job's own statements, as the saga worker runs them
        Jdbi jdbi = Jdbi.create(() -> connect("saga-worker"));
        List<TableRetention.Rule> rules = new ArrayList<>(List.of(TableRetention.idempotencyKeys(),
                TableRetention.inbox(Duration.ofDays(1))));
        rules.addAll(TableRetention.endedSagas(Duration.ofDays(1)));
        rules.addAll(List.of(TableRetention.audit(Duration.ofDays(1)), TableRetention.batches(Duration.ofDays(1)),
                TableRetention.resolvedFindings(Duration.ofDays(1))));
        assertThatCode(() -> new TableRetention(jdbi, Clock.systemUTC(), rules).run()).doesNotThrowAnyException();
        assertThat(denied("saga-worker", "INSERT INTO inbox (consumer, message_id) VALUES ('saga-worker',"
                + " gen_random_uuid()) ON CONFLICT DO NOTHING RETURNING message_id")).isFalse();
        assertThat(denied("saga-worker", "SELECT saga_id FROM saga_instance WHERE next_attempt_at <= now()"
                + " LIMIT 10 FOR UPDATE SKIP LOCKED")).isFalse();

        assertThat(denied("saga-worker", "INSERT INTO saga_instance (saga_id, saga_type, status, step, label, data)"
                + " VALUES (gen_random_uuid(), 'order', 'RUNNING', 'RESERVE_STOCK', 'PENDING_CONFIRMATION', '{}')"))
                .isTrue();
        assertThat(denied("saga-worker", "INSERT INTO idempotency_keys (client_scope, idem_key, request_hash, state,"
                + " expires_at) VALUES ('c', 'k', 'h', 'IN_FLIGHT', now())")).isTrue();
        assertThat(denied("saga-worker", "SELECT count(*) FROM reconciler_feed_position")).isTrue();
    }

    @Test
    void shouldLetThePaymentWorkerReplyAndRaiseAnIncidentButNotMoveASaga() throws Exception {
        assertThat(denied("payment-worker", "INSERT INTO outbox (aggregate_id, topic, message_id, message_type,"
                + " payload) VALUES ('o-1', 'payments.events', gen_random_uuid(), 'PaymentCaptured', '{}')")).isFalse();
        assertThat(denied("payment-worker", "WITH marked AS (UPDATE saga_instance SET incident_cause ="
                + " 'COMMAND_DEAD_LETTERED', incident_detail = 'x', incident_at = now(), version = version + 1,"
                + " updated_at = now() WHERE saga_id = gen_random_uuid() RETURNING saga_id, status, step, label)"
                + " INSERT INTO saga_history (saga_id, status, step, label) SELECT saga_id, status, step, label"
                + " FROM marked")).isFalse();

        assertThat(denied("payment-worker", "UPDATE saga_instance SET status = 'COMPLETED'")).isTrue();
        assertThat(denied("payment-worker", "SELECT count(*) FROM inbox")).isTrue();
        assertThat(denied("payment-worker", "SELECT count(*) FROM idempotency_keys")).isTrue();
    }

    @Test
    void shouldLetTheReconcilerKeepItsPositionsAndFindingsButNotDeleteASaga() throws Exception {
        assertThat(denied("reconciler", "INSERT INTO reconciler_feed_position (feed, position, rows_pulled)"
                + " VALUES ('charges', '1', 1) ON CONFLICT (feed) DO UPDATE SET position = EXCLUDED.position,"
                + " rows_pulled = reconciler_feed_position.rows_pulled + EXCLUDED.rows_pulled, updated_at = now()"))
                .isFalse();
        assertThat(denied("reconciler", "SELECT x.id FROM outbox_message x WHERE x.message_type = 'ChargePayment'"))
                .isFalse();
        assertThat(denied("reconciler", "UPDATE saga_instance SET next_attempt_at = now()"
                + " WHERE saga_id = gen_random_uuid()")).isFalse();

        assertThat(denied("reconciler", "DELETE FROM saga_instance")).isTrue();
        assertThat(denied("reconciler", "SELECT count(*) FROM idempotency_keys")).isTrue();
        assertThat(denied("reconciler", "SELECT count(*) FROM admin_audit")).isTrue();
    }

    /** Whether {@code role} is refused {@code sql}; any other failure fails the test. */
    private static boolean denied(String role, String sql) throws SQLException {
        try (Connection c = connect(role)) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute(sql);
                return false;
            } catch (SQLException e) {
                if (DENIED.equals(e.getSQLState())) {
                    return true;
                }
                throw e;
            } finally {
                c.rollback();
            }
        }
    }

    private static Connection connect(String role) throws SQLException {
        String user = DatabaseRoles.user(role);
        return DriverManager.getConnection(url, user, roles.password(user));
    }
}
