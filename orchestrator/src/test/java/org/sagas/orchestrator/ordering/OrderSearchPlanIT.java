package org.sagas.orchestrator.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sagas.migrations.Migrations;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * The operator's saga list on 100 000 orders (docs/operations-admin.md): for every filter, its page
 * and its bounded count are planned without reading a whole table, and paging by cursor returns
 * each order once.
 */
@RealInfrastructure
class OrderSearchPlanIT {
    private static final int ORDERS = 100_000;
    private static Jdbi jdbi;
    private static OrderStore store;
    private static final Instant NOW = Instant.now();

    @BeforeAll
    static void load(TestInfra infra) {
        DataSource ds = infra.dataSource(4);
        Migrations.apply(ds);
        jdbi = Jdbi.create(ds);
        jdbi.useHandle(h -> {
            // A shop's day: mostly confirmed, a few of each open status, one in a thousand an incident.
            // (The orders are the order sagas' rows, V11: the day is drawn up first, then stored as sagas.)
            h.execute("CREATE TEMP TABLE seed (order_id, customer_id, status, created_at, updated_at) AS"
                    + " SELECT md5('o' || i)::uuid, 'c-' || (i % 5000),"
                    + " CASE WHEN i % 100 < 80 THEN 'CONFIRMED' WHEN i % 100 < 90 THEN 'CANCELLED'"
                    + " WHEN i % 100 < 95 THEN 'REJECTED' WHEN i % 100 = 95 THEN 'PENDING_CONFIRMATION'"
                    + " WHEN i % 100 = 96 THEN 'AWAITING_PAYMENT' WHEN i % 100 = 97 THEN 'PAYMENT_UNKNOWN'"
                    + " WHEN i % 100 = 98 THEN 'COMPENSATING' ELSE 'CONFIRMED' END,"
                    + " now() - (" + ORDERS + " - i) * interval '1 second',"
                    + " now() - (" + ORDERS + " - i) * interval '1 second' + interval '2 seconds'"
                    + " FROM generate_series(1, " + ORDERS + ") i");
            h.execute("INSERT INTO saga_instance (saga_id, saga_type, status, step, label, version, data, parked_on,"
                    + " park_reason, next_attempt_at, expires_at, step_deadline_at, created_at, updated_at, label_at,"
                    + " incident_cause, incident_detail, incident_at)"
                    + " SELECT o.order_id, 'order', m.saga_status, m.step, o.status, 3,"
                    + " jsonb_build_object('orderId', o.order_id, 'customerId', o.customer_id, 'currency', 'EUR',"
                    + " 'totalCents', 100, 'lines', '[]'::jsonb),"
                    + " CASE WHEN o.status = 'PENDING_CONFIRMATION' THEN 'inventory' END,"
                    + " CASE WHEN o.status = 'PENDING_CONFIRMATION' THEN 'breaker open' END,"
                    + " CASE WHEN o.status IN ('PENDING_CONFIRMATION', 'COMPENSATING') THEN now() END,"
                    + " CASE WHEN o.status = 'PENDING_CONFIRMATION' THEN now() + interval '15 minutes' END,"
                    + " CASE WHEN o.status = 'AWAITING_PAYMENT' THEN now() + interval '1 minute' END,"
                    + " o.created_at, o.updated_at, o.updated_at,"
                    + " CASE WHEN o.status = 'PAYMENT_UNKNOWN' AND right(o.customer_id, 1) = '7'"
                    + " THEN 'PAYMENT_UNRESOLVED' END,"
                    + " CASE WHEN o.status = 'PAYMENT_UNKNOWN' AND right(o.customer_id, 1) = '7' THEN 'no answer' END,"
                    + " CASE WHEN o.status = 'PAYMENT_UNKNOWN' AND right(o.customer_id, 1) = '7' THEN now() END"
                    + " FROM seed o JOIN (VALUES ('CONFIRMED', 'COMPLETED', 'CHARGE_PAYMENT'),"
                    + " ('CANCELLED', 'COMPENSATED', 'RESERVE_STOCK'), ('REJECTED', 'FAILED', 'RESERVE_STOCK'),"
                    + " ('PENDING_CONFIRMATION', 'PARKED', 'RESERVE_STOCK'),"
                    + " ('AWAITING_PAYMENT', 'AWAITING_REPLY', 'CHARGE_PAYMENT'),"
                    + " ('PAYMENT_UNKNOWN', 'AWAITING_REPLY', 'CHARGE_PAYMENT'),"
                    + " ('COMPENSATING', 'COMPENSATING', 'RESERVE_STOCK')) AS m(order_status, saga_status, step)"
                    + " ON m.order_status = o.status");
            // Keys live 24 h: the last day's orders have theirs.
            h.execute("INSERT INTO idempotency_keys (client_scope, idem_key, request_hash, state, order_id,"
                    + " created_at, expires_at) SELECT 'customer:' || customer_id, 'key-' || order_id, 'h', 'COMPLETED',"
                    + " order_id, created_at,"
                    + " created_at + interval '24 hours' FROM orders WHERE created_at > now() - interval '24 hours'");
            h.execute("VACUUM ANALYZE saga_instance");
            h.execute("VACUUM ANALYZE idempotency_keys");
        });
        store = new OrderStore(jdbi);
    }

    @Test
    void shouldPlanEveryFilterWithoutASequentialScan() {
        // Given every filter of the list, alone and with a cursor
        UUID someOrder = jdbi.withHandle(h -> h.createQuery("SELECT order_id FROM orders ORDER BY created_at DESC"
                + " OFFSET 10 LIMIT 1").mapTo(UUID.class).one());
        Map<String, OrderFilter> filters = new LinkedHashMap<>();
        filters.put("one status", status(OrderStatus.PENDING_CONFIRMATION));
        filters.put("several statuses", new OrderFilter(Set.of(OrderStatus.PENDING_CONFIRMATION,
                OrderStatus.PAYMENT_UNKNOWN), null, null, null, null, null, null, null, null));
        filters.put("a common status", status(OrderStatus.CONFIRMED));
        filters.put("customer", new OrderFilter(null, "c-42", null, null, null, null, null, null, null));
        filters.put("idempotency key", new OrderFilter(null, null, "key-" + someOrder, null, null, null, null, null,
                null));
        filters.put("step", new OrderFilter(null, null, null, "CHARGE_PAYMENT", null, null, null, null, null));
        filters.put("parked on", new OrderFilter(null, null, null, null, "inventory", null, null, null, null));
        filters.put("any incident", OrderFilter.incidents());
        filters.put("one incident cause", new OrderFilter(null, null, null, null, null, "PAYMENT_UNRESOLVED", null,
                null, null));
        filters.put("stuck", new OrderFilter(null, null, null, null, null, null, Duration.ofMinutes(10), null, null));
        filters.put("created between", new OrderFilter(null, null, null, null, null, null, null,
                NOW.minus(Duration.ofHours(5)), NOW.minus(Duration.ofHours(4))));
        filters.put("status and customer", new OrderFilter(Set.of(OrderStatus.CONFIRMED), "c-42", null, null, null,
                null, null, null, null));
        OrderCursor cursor = new OrderCursor(NOW.minus(Duration.ofHours(3)), UUID.randomUUID());

        for (Map.Entry<String, OrderFilter> f : filters.entrySet()) {
            // When each is planned: a first page, a later page, both directions, and its count
            List<String> plans = List.of(
                    plan(OrderStore.searchSql(f.getValue(), false, true), f.getValue(), null, 51),
                    plan(OrderStore.searchSql(f.getValue(), true, true), f.getValue(), cursor, 51),
                    plan(OrderStore.searchSql(f.getValue(), true, false), f.getValue(), cursor, 100),
                    plan(OrderStore.countSql(f.getValue()), f.getValue(), null, -1));

            // Then no plan reads a whole table
            for (String plan : plans) {
                System.out.printf("-- %s%n%s%n", f.getKey(), plan);
                assertThat(plan).as("plan for %s:%n%s", f.getKey(), plan).doesNotContain("Seq Scan");
            }
        }
        // And the list without any filter walks the creation-time index too
        assertThat(plan(OrderStore.searchSql(OrderFilter.all(), true, true), OrderFilter.all(), cursor, 51))
                .doesNotContain("Seq Scan");
    }

    @Test
    void shouldReturnEachOrderOnceAcrossPagesWhileNewOrdersArrive() {
        // Given the pending orders of the table, paged 100 at a time
        OrderFilter pending = status(OrderStatus.PENDING_CONFIRMATION);
        int expected = store.count(pending);
        java.util.Set<UUID> seen = new java.util.LinkedHashSet<>();
        OrderCursor after = null;
        int pages = 0;
        while (true) {
            List<OrderSummary> page = store.search(pending, after, 100, true);
            if (pages == 1) {
                // When a new pending order arrives between two pages
                UUID late = UUID.randomUUID();
                jdbi.useHandle(h -> insertPending(h, late));
            }
            page.forEach(o -> assertThat(seen.add(o.orderId())).as("seen twice: %s", o.orderId()).isTrue());
            pages++;
            if (page.size() < 100) {
                break;
            }
            after = page.get(page.size() - 1).cursor();
        }

        // Then every order that was there is listed once, and the newcomer did not shift the pages
        assertThat(seen).hasSize(expected);
        assertThat(pages).isEqualTo(expected / 100 + 1);
        assertThat(store.count(pending)).isEqualTo(expected + 1);
    }

    @Test
    void shouldCountUpToTheCapOnly() {
        assertThat(store.count(status(OrderStatus.CONFIRMED))).isEqualTo(81_000);
        assertThat(store.count(OrderFilter.all())).isEqualTo(OrderStore.COUNT_CAP);
    }

    private static void insertPending(Handle h, UUID id) {
        h.execute("INSERT INTO saga_instance (saga_id, saga_type, status, step, label, data, parked_on)"
                + " VALUES (?, 'order', 'PARKED', 'RESERVE_STOCK', 'PENDING_CONFIRMATION',"
                + " '{\"customerId\": \"c-late\", \"currency\": \"EUR\", \"totalCents\": 1, \"lines\": []}'::jsonb,"
                + " 'inventory')", id);
    }

    private static OrderFilter status(OrderStatus status) {
        return new OrderFilter(Set.of(status), null, null, null, null, null, null, null, null);
    }

    private static String plan(String sql, OrderFilter filter, OrderCursor cursor, int limit) {
        return jdbi.withHandle(h -> {
            var query = OrderStore.bindSearch(h.createQuery("EXPLAIN " + sql), filter, cursor, NOW);
            if (limit > 0) {
                query.bind("limit", limit);
            } else {
                query.bind("cap", OrderStore.COUNT_CAP);
            }
            return String.join("\n", query.mapTo(String.class).list());
        });
    }
}
