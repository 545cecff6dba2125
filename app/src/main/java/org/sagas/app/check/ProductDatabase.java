package org.sagas.app.check;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.sagas.orchestrator.ordering.OrderStatus;

/**
 * What the checker reads from the product's PostgreSQL: the orders view, the outbox and its dead
 * letters, incidents on the saga rows and the reconciliation findings (docs/operations.md). Reads
 * only, on a pool of its own (two connections, application name {@code sagas-check}).
 */
final class ProductDatabase implements AutoCloseable {
    /** An order as the checker judges it. */
    record Order(UUID id, OrderStatus status, Instant createdAt) {}

    /** An unpublished row: its order (aggregate), when it was written, whether the broker refused it. */
    record StuckRow(String orderId, Instant createdAt, boolean deadLetter) {}

    /** A saga that waits for an operator, and why. */
    record OpenIncident(String orderId, String cause) {}

    /** An open reconciliation finding. */
    record OpenFinding(String orderId, String kind) {}

    private final HikariDataSource pool;
    private final Jdbi jdbi;
    private final String where;

    private ProductDatabase(HikariDataSource pool, String where) {
        this.pool = pool;
        this.jdbi = Jdbi.create(pool);
        this.where = where;
    }

    /** Connects, failing within seconds with {@link Unreachable} naming the URL. */
    static ProductDatabase open(Target target) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(target.jdbcUrl());
        config.setUsername(target.dbUser());
        config.setPassword(target.dbPassword().isEmpty() ? null : target.dbPassword());
        config.addDataSourceProperty("ApplicationName", "sagas-check");
        config.addDataSourceProperty("connectTimeout", "5");
        config.addDataSourceProperty("options", "-c statement_timeout=60000 -c default_transaction_read_only=on");
        config.setMaximumPoolSize(2);
        config.setConnectionTimeout(5_000);
        config.setInitializationFailTimeout(5_000);
        config.setPoolName("sagas-check");
        try {
            return new ProductDatabase(new HikariDataSource(config), target.jdbcUrl());
        } catch (HikariPool.PoolInitializationException | IllegalArgumentException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new Unreachable("cannot reach PostgreSQL at " + target.jdbcUrl() + ": "
                    + String.valueOf(cause.getMessage()).lines().findFirst().orElse(cause.toString()), e);
        }
    }

    /** The database's clock: orders created up to it are the ones the check started with. */
    Instant now() {
        return read(() -> jdbi.withHandle(h -> h.createQuery("SELECT now()").mapTo(Instant.class).one()));
    }

    /** Every order (its status and age), by id. */
    Map<UUID, Order> orders() {
        return read(() -> jdbi.withHandle(h -> {
            Map<UUID, Order> orders = new HashMap<>();
            h.createQuery("SELECT order_id, status, created_at FROM orders").map((rs, ctx) -> new Order(
                    rs.getObject(1, UUID.class), OrderStatus.valueOf(rs.getString(2)),
                    rs.getTimestamp(3).toInstant())).forEach(o -> orders.put(o.id(), o));
            return orders;
        }));
    }

    /** The orders created up to {@code createdBefore} that are not terminal, oldest first. */
    List<Order> notTerminal(Instant createdBefore) {
        return read(() -> jdbi.withHandle(h -> h.createQuery("SELECT order_id, status, created_at FROM orders"
                        + " WHERE status IN ('PENDING_CONFIRMATION', 'AWAITING_PAYMENT', 'PAYMENT_UNKNOWN', 'COMPENSATING')"
                        + " AND created_at <= :before ORDER BY created_at, order_id")
                .bind("before", java.sql.Timestamp.from(createdBefore))
                .map((rs, ctx) -> new Order(rs.getObject(1, UUID.class), OrderStatus.valueOf(rs.getString(2)),
                        rs.getTimestamp(3).toInstant())).list()));
    }

    /** The SKUs the orders' lines name: of {@code orders}, or of every order when empty. */
    List<String> skus(Collection<UUID> orders) {
        String sql = "SELECT DISTINCT l ->> 'sku' FROM orders o, jsonb_array_elements(o.lines) l"
                + (orders.isEmpty() ? "" : " WHERE o.order_id = ANY(:ids)");
        return read(() -> jdbi.withHandle(h -> {
            var q = h.createQuery(sql);
            if (!orders.isEmpty()) {
                q.bindArray("ids", UUID.class, orders);
            }
            return q.mapTo(String.class).list();
        }));
    }

    /** Per SKU of {@code skus}: the quantity CONFIRMED orders took (the stock they consumed). */
    Map<String, Long> confirmedQuantities(Collection<String> skus) {
        if (skus.isEmpty()) {
            return Map.of();
        }
        return read(() -> jdbi.withHandle(h -> {
            Map<String, Long> taken = new HashMap<>();
            h.createQuery("SELECT l ->> 'sku', sum((l ->> 'quantity')::bigint) FROM orders o,"
                            + " jsonb_array_elements(o.lines) l WHERE o.status = 'CONFIRMED' AND l ->> 'sku' = ANY(:skus)"
                            + " GROUP BY 1")
                    .bindArray("skus", String.class, skus)
                    .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getLong(2)))
                    .forEach(e -> taken.put(e.getKey(), e.getValue()));
            return taken;
        }));
    }

    /** Outbox rows (and dead-lettered ones) written longer than {@code age} ago, oldest first. */
    List<StuckRow> stuckOutbox(Duration age) {
        return read(() -> jdbi.withHandle(h -> h.createQuery("SELECT aggregate_id, created_at, false FROM outbox"
                        + " WHERE created_at < now() - make_interval(secs => :age)"
                        + " UNION ALL SELECT aggregate_id, created_at, true FROM outbox_dead_letter"
                        + " WHERE created_at < now() - make_interval(secs => :age) ORDER BY 2")
                .bind("age", age.toMillis() / 1000.0)
                .map((rs, ctx) -> new StuckRow(rs.getString(1), rs.getTimestamp(2).toInstant(), rs.getBoolean(3)))
                .list()));
    }

    /** Sagas marked with an incident, oldest first. */
    List<OpenIncident> incidents() {
        return read(() -> jdbi.withHandle(h -> h.createQuery("SELECT saga_id::text, incident_cause FROM saga_instance"
                        + " WHERE incident_cause IS NOT NULL ORDER BY incident_at")
                .map((rs, ctx) -> new OpenIncident(rs.getString(1), rs.getString(2))).list()));
    }

    /** Findings still open, oldest first. */
    List<OpenFinding> openFindings() {
        return read(() -> jdbi.withHandle(h -> h.createQuery("SELECT order_id, kind FROM reconciliation_finding"
                        + " WHERE state = 'OPEN' ORDER BY opened_at")
                .map((rs, ctx) -> new OpenFinding(rs.getString(1), rs.getString(2))).list()));
    }

    private <T> T read(java.util.function.Supplier<T> query) {
        try {
            return query.get();
        } catch (JdbiException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new Unreachable("cannot read the product's tables on " + where + ": "
                    + String.valueOf(cause.getMessage()).lines().findFirst().orElse(cause.toString()), e);
        }
    }

    @Override
    public void close() {
        pool.close();
    }
}
