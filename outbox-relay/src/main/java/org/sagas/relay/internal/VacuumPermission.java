package org.sagas.relay.internal;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Whether the relay's database user may {@code VACUUM} the outbox, asked of PostgreSQL's catalog
 * rather than read from the text of the warning a refused vacuum gives (which changes between
 * versions and languages): from PostgreSQL 17 the {@code MAINTAIN} privilege (owners, {@code
 * pg_maintain}, superusers have it), before that the table's or the database's owner, or a
 * superuser. Stateless.
 */
final class VacuumPermission {
    /** SQLSTATE {@code insufficient_privilege}. */
    static final String INSUFFICIENT_PRIVILEGE = "42501";

    private static final String SINCE_17 = "SELECT has_table_privilege('outbox', 'MAINTAIN')";
    private static final String BEFORE_17 = "SELECT r.rolsuper OR pg_has_role(r.oid, c.relowner, 'MEMBER')"
            + " OR pg_has_role(r.oid, d.datdba, 'MEMBER')"
            + " FROM pg_roles r, pg_class c, pg_database d"
            + " WHERE r.rolname = current_user AND c.oid = 'outbox'::regclass AND d.datname = current_database()";

    private VacuumPermission() {}

    /** Asks the catalog; a failing question counts as no (autovacuum still does the work). */
    static boolean granted(Connection c) {
        try (Statement s = c.createStatement()) {
            int version;
            try (ResultSet rs = s.executeQuery("SELECT current_setting('server_version_num')::int")) {
                rs.next();
                version = rs.getInt(1);
            }
            try (ResultSet rs = s.executeQuery(version >= 170_000 ? SINCE_17 : BEFORE_17)) {
                return rs.next() && rs.getBoolean(1);
            }
        } catch (SQLException e) {
            return false;
        }
    }
}
