package org.sagas.migrations;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the pending schema migrations. Every role calls this at start unless
 * {@code SAGA_DB_MIGRATE=off} leaves the schema to its owner ({@code ./sagas migrate}).
 *
 * <p>Idempotent: applying twice is harmless. Safe when several roles start at once: Flyway
 * takes a PostgreSQL advisory lock for the duration of the migration, so the second caller
 * waits and then finds nothing left to do. Throws Flyway's unchecked exceptions when a
 * migration fails or the database cannot be reached.
 */
public final class Migrations {
    private static final Logger log = LoggerFactory.getLogger(Migrations.class);

    private Migrations() {}

    /** Migrates the schema behind {@code dataSource}; returns how many migrations were applied. */
    public static int apply(DataSource dataSource) {
        MigrateResult result = Flyway.configure()
                .dataSource(dataSource)
                .locations("classpath:db/migration")
                // A migration may rewrite a big table: the product pool's statement timeout is not for it.
                .initSql("SET statement_timeout = 0")
                .load()
                .migrate();
        log.info("schema at version {} ({} migrations applied now)", result.targetSchemaVersion,
                result.migrationsExecuted);
        return result.migrationsExecuted;
    }

    /**
     * How many migrations {@code dataSource}'s schema lacks, without changing it: for a role that
     * may not change the schema (docs/security.md), which then refuses to start on a schema that is
     * behind. Needs only read access to Flyway's history table.
     */
    public static int pending(DataSource dataSource) {
        return Flyway.configure()
                .dataSource(dataSource)
                .locations("classpath:db/migration")
                .load()
                .info()
                .pending()
                .length;
    }

    /** Command-line entry point: {@code Migrations <jdbcUrl> <user> <password>}. */
    public static void main(String[] args) {
        if (args.length != 3) {
            System.err.println("usage: Migrations <jdbcUrl> <user> <password>");
            System.exit(2);
        }
        Flyway.configure().dataSource(args[0], args[1], args[2]).load().migrate();
    }
}
