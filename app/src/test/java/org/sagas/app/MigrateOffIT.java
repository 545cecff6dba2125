package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sagas.migrations.Migrations;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * A role started with {@code SAGA_DB_MIGRATE=off} (docker-compose.yml: its PostgreSQL user may not
 * change the schema) leaves the schema alone and refuses a schema that is behind, with one line
 * naming the fix; once the owner migrated, it starts.
 */
@RealInfrastructure
class MigrateOffIT {

    @Test
    void shouldRefuseASchemaThatIsBehindAndChangeNothingWhenMigrationsAreOff(TestInfra infra) {
        // Given this class's empty database and a role that may not migrate
        Settings off = Settings.from(Map.of("SAGA_DB_URL", infra.jdbcUrl(), "SAGA_DB_USER", infra.user(),
                "SAGA_DB_PASSWORD", infra.password(), "SAGA_DB_MIGRATE", "off")::get, Map.of());
        int behind = Migrations.pending(infra.dataSource(2));
        assertThat(behind).isPositive();
        // When it starts
        // Then it refuses, naming what to run, and the schema is as behind as before
        assertThatThrownBy(() -> Node.migrate(off, (HikariDataSource) infra.dataSource(2)))
                .isInstanceOf(ConfigurationError.class).hasMessageContaining("./sagas migrate")
                .hasMessageContaining(Integer.toString(behind));
        assertThat(Migrations.pending(infra.dataSource(2))).isEqualTo(behind);
        // And once the schema's owner migrated, it starts
        Migrations.apply(infra.dataSource(2));
        Node.migrate(off, (HikariDataSource) infra.dataSource(2));
        assertThat(Migrations.pending(infra.dataSource(2))).isZero();
    }
}
