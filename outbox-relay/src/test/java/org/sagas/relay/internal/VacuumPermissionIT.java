package org.sagas.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.sagas.migrations.Migrations;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/** The relay asks PostgreSQL whether it may vacuum the outbox, instead of reading a warning's text. */
@RealInfrastructure
class VacuumPermissionIT {

    @Test
    void shouldTellTheOwnerFromAUserWhoMayOnlyWriteRows(TestInfra infra) throws Exception {
        // Given the outbox, owned by the migrating user, and a second user who may only use its rows
        DataSource owner = infra.dataSource(2);
        Migrations.apply(owner);
        String role = "relay_" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection c = owner.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE ROLE " + role + " LOGIN PASSWORD 'relay' NOSUPERUSER");
            s.execute("GRANT SELECT, INSERT, DELETE ON outbox TO " + role);
        }

        // Then the owner may vacuum it and the other user may not
        try (Connection c = owner.getConnection()) {
            assertThat(VacuumPermission.granted(c)).isTrue();
        }
        try (Connection c = DriverManager.getConnection(infra.jdbcUrl(), role, "relay")) {
            assertThat(VacuumPermission.granted(c)).isFalse();
        }

        // And once that user owns it, the same question says yes: the answer comes from the catalog
        try (Connection c = owner.getConnection(); Statement s = c.createStatement()) {
            s.execute("ALTER TABLE outbox OWNER TO " + role);
        }
        try (Connection c = DriverManager.getConnection(infra.jdbcUrl(), role, "relay")) {
            assertThat(VacuumPermission.granted(c)).isTrue();
        } finally {
            try (Connection c = owner.getConnection(); Statement s = c.createStatement()) {
                s.execute("ALTER TABLE outbox OWNER TO " + infra.user());
            }
        }
    }
}
