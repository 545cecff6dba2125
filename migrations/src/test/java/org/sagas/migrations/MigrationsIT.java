package org.sagas.migrations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

@RealInfrastructure
class MigrationsIT {

    @Test
    void shouldApplyOnceWhenFourRolesStartAtTheSameTimeAndDoNothingTheSecondTime(TestInfra infra) throws Exception {
        // Given four roles starting at once against an empty database
        DataSource ds = infra.dataSource(8);
        exec(ds, "DROP SCHEMA IF EXISTS sandbox CASCADE; DROP SCHEMA public CASCADE; CREATE SCHEMA public");
        ExecutorService pool = Executors.newFixedThreadPool(4);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Integer>> runs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            runs.add(pool.submit(() -> {
                go.await();
                return Migrations.apply(ds);
            }));
        }
        go.countDown();
        int applied = 0;
        for (Future<Integer> run : runs) {
            applied += run.get(120, TimeUnit.SECONDS);
        }
        pool.shutdown();

        // Then exactly one of them applied the migrations, each once, all successfully
        assertThat(applied).isEqualTo(count(ds, "SELECT count(*) FROM flyway_schema_history WHERE success"));
        assertThat(count(ds, "SELECT count(*) FROM flyway_schema_history WHERE NOT success")).isZero();
        assertThat(count(ds, "SELECT count(DISTINCT version) FROM flyway_schema_history")).isEqualTo(applied);

        // And applying again changes nothing
        assertThat(Migrations.apply(ds)).isZero();
    }

    @Test
    void shouldRejectAStatusTheSagaDoesNotKnow(TestInfra infra) throws Exception {
        DataSource ds = infra.dataSource(2);
        Migrations.apply(ds);

        assertThatThrownBy(() -> exec(ds, "INSERT INTO saga_instance (saga_id, saga_type, status, step, label, data)"
                + " VALUES (gen_random_uuid(), 'order', 'LOST', 'RESERVE_STOCK', 'NEW', '{}')"))
                .isInstanceOf(SQLException.class).hasMessageContaining("check constraint");
        // An order's status is its saga's label (the orders view, V11): only the order statuses.
        assertThatThrownBy(() -> exec(ds, "INSERT INTO saga_instance (saga_id, saga_type, status, step, label, data)"
                + " VALUES (gen_random_uuid(), 'order', 'RUNNING', 'RESERVE_STOCK', 'SHIPPED', '{}')"))
                .isInstanceOf(SQLException.class).hasMessageContaining("saga_order_label_check");
        exec(ds, "INSERT INTO saga_instance (saga_id, saga_type, status, step, label, data)"
                + " VALUES (gen_random_uuid(), 'trip', 'RUNNING', 'BOOK_HOTEL', 'SHIPPED', '{}')");
        assertThatThrownBy(() -> exec(ds, "INSERT INTO saga_instance (saga_id, saga_type, status, step, label, data)"
                + " VALUES (gen_random_uuid(), 'order', 'PARKED', 'RESERVE_STOCK', 'NEW', '{}')"))
                .as("parked without a dependency").isInstanceOf(SQLException.class);
    }

    private static void exec(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static long count(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
