package org.sagas.orchestrator.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sagas.migrations.Migrations;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * The database keeps its own CHECK constraints on order values (a guard against any writer), and
 * they must say what {@link Limits} says: a migration or a constant that drifts fails here.
 */
@RealInfrastructure
class LimitsSchemaIT {
    private static Jdbi jdbi;

    @BeforeAll
    static void migrate(TestInfra infra) {
        DataSource ds = infra.dataSource(2);
        Migrations.apply(ds);
        jdbi = Jdbi.create(ds);
    }

    @Test
    void shouldCheckTheCurrencyPatternOfLimitsWhereACurrencyIsStored() {
        String rule = "(currency ~ '" + Limits.CURRENCY_PATTERN + "'::text)";

        assertThat(checks("sandbox.charge")).anySatisfy(def -> assertThat(def).contains(rule));
    }

    @Test
    void shouldCheckTheLengthBoundsOfLimitsWhereKeysIdsAndSkusAreStored() {
        assertThat(checks("idempotency_keys")).anySatisfy(def -> assertThat(def).contains(between("idem_key",
                Limits.MAX_KEY)));
        assertThat(checks("sandbox.stock")).anySatisfy(def -> assertThat(def).contains(between("sku", Limits.MAX_SKU)));
        assertThat(checks("sandbox.reservation_line")).anySatisfy(def -> assertThat(def).contains(between("sku",
                Limits.MAX_SKU)));
        assertThat(checks("sandbox.reservation")).anySatisfy(def -> assertThat(def).contains(between(
                "reservation_key", Limits.MAX_KEY)));
        assertThat(checks("sandbox.reservation")).anySatisfy(def -> assertThat(def).contains(between("order_id",
                Limits.MAX_ORDER_ID)));
        assertThat(checks("sandbox.charge")).anySatisfy(def -> assertThat(def).contains(between("idempotency_key",
                Limits.MAX_KEY)));
        assertThat(checks("sandbox.charge")).anySatisfy(def -> assertThat(def).contains(between("order_id",
                Limits.MAX_ORDER_ID)));
        assertThat(checks("sandbox.release_request")).anySatisfy(def -> assertThat(def).contains(between(
                "release_key", Limits.MAX_KEY)));
        assertThat(checks("sandbox.refund_request")).anySatisfy(def -> assertThat(def).contains(between("refund_key",
                Limits.MAX_KEY)));
    }

    @Test
    void shouldCheckTheQuantityFloorOfLimitsWhereAReservedQuantityIsStored() {
        assertThat(checks("sandbox.reservation_line")).anySatisfy(def -> assertThat(def).contains(
                "(quantity > " + (Limits.MIN_QUANTITY - 1) + ")"));
    }

    /** How PostgreSQL prints {@code length(column) BETWEEN 1 AND max}. */
    private static String between(String column, int max) {
        return "(length(" + column + ") >= 1) AND (length(" + column + ") <= " + max + ")";
    }

    private static List<String> checks(String table) {
        return jdbi.withHandle(h -> h.createQuery("SELECT pg_get_constraintdef(oid) FROM pg_constraint"
                + " WHERE contype = 'c' AND conrelid = CAST(:table AS regclass)").bind("table", table)
                .mapTo(String.class).list());
    }
}
