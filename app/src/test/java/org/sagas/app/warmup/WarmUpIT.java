package org.sagas.app.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.sagas.sandbox.InventorySandbox;
import org.sagas.sandbox.SandboxAccess;
import org.sagas.embedded.FreePorts;
import org.sagas.migrations.Migrations;
import org.sagas.orchestrator.resilience.ResilienceConfig;
import org.sagas.orchestrator.saga.SagaTimings;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

@RealInfrastructure
class WarmUpIT {

    @Test
    void shouldRunDryOrdersThroughTheOrderPathAndLeaveNoRowAnywhere(TestInfra infra) throws Exception {
        // Given a migrated database and a healthy inventory
        DataSource db = infra.dataSource(6);
        Migrations.apply(db);
        int port = FreePorts.find();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (InventorySandbox inventory = InventorySandbox.start(db, "127.0.0.1", port,
                SandboxAccess.of(false, ""))) {
            WarmUp warmUp = new WarmUp(new WarmUp.Target(db, Clock.systemUTC(),
                    new SagaTimings(Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofMinutes(15)),
                    Duration.ofSeconds(60), 100, 500, Duration.ofHours(24), ResilienceConfig.inventoryDefaults(),
                    URI.create("http://127.0.0.1:" + port)), 40, Duration.ofSeconds(60), 2, registry);

            // When it warms up
            warmUp.start();
            assertThat(warmUp.awaitWarmed(Duration.ofSeconds(90))).isTrue();

            // Then every dry-run order went through, the readiness says so, and nothing was written
            assertThat(registry.get("saga.warm.up.orders").gauge().value()).isEqualTo(40);
            assertThat(registry.find("saga.warm.up.incomplete").counter()).isNull();
            assertThat(warmUp.readiness(() -> Map.of("postgresql", true)).get())
                    .containsEntry("warmed", true).containsEntry("postgresql", true);
            assertThat(rowsInEveryTable(db)).allSatisfy(count -> assertThat(count).endsWith(" 0"));
        }
    }

    @Test
    void shouldCommitNothingInsideADryRunYetSeeItsOwnWritesAcrossTransactions(TestInfra infra) throws Exception {
        // Given a table and a rollback-only data source over the pool
        DataSource db = infra.dataSource(2);
        Jdbi real = Jdbi.create(db);
        real.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS dry (n int)"));
        RollbackOnlyDataSource dry = new RollbackOnlyDataSource(db);
        Jdbi jdbi = Jdbi.create(dry);

        // When code commits two transactions in one dry run and reads in a third
        int seen = dry.dryRun(() -> {
            jdbi.useTransaction(h -> h.execute("INSERT INTO dry VALUES (1)"));
            jdbi.useTransaction(h -> h.execute("INSERT INTO dry VALUES (2)"));
            return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM dry").mapTo(Integer.class).one());
        });

        // Then it saw its writes, and nobody else ever does
        assertThat(seen).isEqualTo(2);
        int committed = real.withHandle(h -> h.createQuery("SELECT count(*) FROM dry").mapTo(Integer.class).one());
        assertThat(committed).isZero();
    }

    /** "table count" for every table of the public and sandbox schemas. */
    private static List<String> rowsInEveryTable(DataSource db) throws Exception {
        List<String> counts = new ArrayList<>();
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT schemaname || '.' || tablename FROM pg_tables"
                    + " WHERE schemaname IN ('public', 'sandbox') AND tablename <> 'flyway_schema_history'")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            // (orders is a view of saga_instance since V11)
            assertThat(tables).contains("public.idempotency_keys", "public.outbox", "public.saga_instance");
            for (String t : tables) {
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + t)) {
                    rs.next();
                    counts.add(t + " " + rs.getLong(1));
                }
            }
        }
        return counts;
    }
}
