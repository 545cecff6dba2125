package org.sagas.app;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

/**
 * The product's PostgreSQL roles, as {@code ops/postgres/init-roles.sql} makes them for compose
 * (docs/security.md, "Deployment"): the schema's owner {@code sagas_owner}, the group
 * {@code sagas_app} that may connect and use the schema, and a login per product role,
 * {@code sagas_<role>}, whose table grants are {@code ops/postgres/grants.sql}. For
 * {@code ./sagas cluster} the passwords are {@link GeneratedSecret}s (mode 600) in
 * {@code <data dir>/postgres-credentials/} (mode 700), one file per login named after it, kept
 * with the data directory. Immutable.
 */
final class DatabaseRoles {
    static final String DIRECTORY = "postgres-credentials";
    static final String OWNER = "sagas_owner";
    static final String GROUP = "sagas_app";
    /** The roles that log in to the product's database; the sandbox keeps a database of its own. */
    static final List<String> PRODUCT_ROLES = Role.labels(Role.PRODUCT);
    /** The grants, on the class path (app/pom.xml copies ops/postgres/grants.sql). */
    static final String GRANTS = "ops/postgres/grants.sql";

    private final Path directory;

    private DatabaseRoles(Path directory) {
        this.directory = directory;
    }

    /** The PostgreSQL login of a product role: {@code saga-worker} logs in as {@code sagas_saga_worker}. */
    static String user(String role) {
        if (!PRODUCT_ROLES.contains(role)) {
            throw new IllegalArgumentException("no PostgreSQL role for " + role);
        }
        return "sagas_" + role.replace('-', '_');
    }

    /** The passwords under {@code dataDir}, made now where there are none. */
    static DatabaseRoles ensure(Path dataDir) {
        Path directory = dataDir.resolve(DIRECTORY);
        GeneratedSecret.ownerOnlyDirectory(directory);
        DatabaseRoles roles = new DatabaseRoles(directory);
        GeneratedSecret.ensure(roles.passwordFile(OWNER), "a fresh --data-dir");
        for (String role : PRODUCT_ROLES) {
            GeneratedSecret.ensure(roles.passwordFile(user(role)), "a fresh --data-dir");
        }
        return roles;
    }

    Path directory() {
        return directory;
    }

    Path passwordFile(String login) {
        return directory.resolve(login);
    }

    String password(String login) {
        return GeneratedSecret.ensure(passwordFile(login), "a fresh --data-dir");
    }

    /** How a process of {@code role} logs in: its user, and its password's file, never the password. */
    Map<String, String> env(String role) {
        return Map.of(Settings.DB_USER.name(), user(role), Settings.DB_PASSWORD_FILE.name(),
                passwordFile(user(role)).toString());
    }

    /**
     * As the superuser {@code superuser} is connected: creates the logins that are missing and sets
     * each one's password from its file, then gives the connected database and its schema
     * {@code public} to the owner, reachable by the group only, as init-roles.sql does.
     *
     * @throws ConfigurationError if the schema's tables belong to someone else (an older
     *     {@code ./sagas cluster} migrated as the superuser): use a fresh data directory
     */
    void create(Connection superuser) throws SQLException {
        try (Statement s = superuser.createStatement()) {
            String tablesOwner = null;
            try (ResultSet rs = s.executeQuery("SELECT pg_get_userbyid(relowner) FROM pg_class"
                    + " WHERE oid = to_regclass('public.flyway_schema_history')")) {
                if (rs.next()) {
                    tablesOwner = rs.getString(1);
                }
            }
            if (tablesOwner != null && !tablesOwner.equals(OWNER)) {
                throw new ConfigurationError("the schema of " + superuser.getCatalog() + " belongs to " + tablesOwner
                        + ", not " + OWNER + " (an older ./sagas cluster migrated it as the superuser): use a fresh"
                        + " --data-dir");
            }
            createRole(s, GROUP, "NOLOGIN", null);
            createRole(s, OWNER, "LOGIN", password(OWNER));
            for (String role : PRODUCT_ROLES) {
                createRole(s, user(role), "LOGIN", password(user(role)));
                s.execute("GRANT " + GROUP + " TO " + user(role));
            }
            String database = quoteIdentifier(superuser.getCatalog());
            s.execute("ALTER DATABASE " + database + " OWNER TO " + OWNER);
            s.execute("REVOKE ALL ON DATABASE " + database + " FROM PUBLIC");
            s.execute("GRANT CONNECT ON DATABASE " + database + " TO " + GROUP);
            s.execute("ALTER SCHEMA public OWNER TO " + OWNER);
            s.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
            s.execute("GRANT USAGE ON SCHEMA public TO " + GROUP);
        }
    }

    private static void createRole(Statement s, String name, String login, String password) throws SQLException {
        boolean exists;
        try (ResultSet rs = s.executeQuery("SELECT 1 FROM pg_roles WHERE rolname = '" + name + "'")) {
            exists = rs.next();
        }
        String options = login + (password == null ? "" : " PASSWORD " + quoteLiteral(password));
        s.execute((exists ? "ALTER ROLE " : "CREATE ROLE ") + name + " " + options);
    }

    /**
     * Applies {@link #GRANTS} on {@code settings}' database as its user, the schema's owner, after
     * the migrations (the tables exist only then). Idempotent, as the file is.
     *
     * @throws ConfigurationError if a statement fails, e.g. a product role does not exist
     */
    static void applyGrants(Settings settings) {
        try (Connection c = DriverManager.getConnection(settings.dbUrl(), settings.dbUser(),
                settings.dbPassword().isEmpty() ? null : settings.dbPassword())) {
            applyGrants(c);
        } catch (SQLException e) {
            throw new ConfigurationError("cannot apply " + GRANTS + " on " + settings.dbUrl() + " as "
                    + settings.dbUser() + ": " + e.getMessage(), e);
        }
    }

    /** As {@link #applyGrants(Settings)}, on {@code owner}'s connection, in one transaction. */
    static void applyGrants(Connection owner) throws SQLException {
        boolean autoCommit = owner.getAutoCommit();
        owner.setAutoCommit(false);
        try (Statement s = owner.createStatement()) {
            s.execute(grantsSql());
            owner.commit();
        } catch (SQLException e) {
            owner.rollback();
            throw e;
        } finally {
            owner.setAutoCommit(autoCommit);
        }
    }

    static String grantsSql() {
        try (InputStream in = DatabaseRoles.class.getClassLoader().getResourceAsStream(GRANTS)) {
            if (in == null) {
                throw new IllegalStateException(GRANTS + " is not on the class path (app/pom.xml copies it)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + GRANTS, e);
        }
    }

    private static String quoteLiteral(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    private static String quoteIdentifier(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }
}
