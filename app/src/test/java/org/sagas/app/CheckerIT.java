package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sagas.app.check.CheckCommand;
import org.sagas.app.check.CheckOptions;
import org.sagas.app.check.Checker;
import org.sagas.app.check.Invariant;
import org.sagas.app.check.Report;
import org.sagas.app.check.ReportOutput;
import org.sagas.app.check.Target;
import org.sagas.app.check.Verdict;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * {@code ./sagas check} against the whole product on the real PostgreSQL and Kafka: settled orders
 * (confirmed, declined, out of stock) pass every invariant; then each invariant is broken on
 * purpose, in the product's own tables, the sandboxes' ledgers or on {@code orders.events}, and the
 * checker must fail on exactly that one, naming the order (or SKU). Every case undoes its damage
 * before the reconciler's grace period could see it, and the one that cannot be undone (a record on
 * the topic) breaks an order of its own.
 */
@RealInfrastructure
class CheckerIT {
    private static final Duration WITHIN = Duration.ofSeconds(30);

    private static TestProduct product;
    private static Jdbi jdbi;
    private static Target target;
    private static String sku;
    private static UUID confirmed;
    private static UUID declined;
    private static UUID rejected;
    private static Set<UUID> settled;

    @BeforeAll
    static void placeOrders(TestInfra infra) {
        product = TestProduct.shared(infra);
        product.defaults();
        product.healthy();
        // The shared product may run on the database of the class that started it: read its database.
        jdbi = product.product().node().jdbi;
        target = CheckTargets.of(product.settings());
        sku = "check-" + UUID.randomUUID().toString().substring(0, 8);
        product.stock(sku, 10);
        confirmed = TestProduct.orderId(place(2));
        product.awaitStatus(confirmed, "CONFIRMED", WITHIN);
        product.paymentFaults("{\"declineRate\":1.0}");
        declined = TestProduct.orderId(place(1));
        product.awaitStatus(declined, "CANCELLED", WITHIN);
        product.healthy();
        HttpResponse<String> outOfStock = place(100);
        assertThat(outOfStock.statusCode()).isEqualTo(422);
        rejected = TestProduct.orderId(outOfStock);
        settled = Set.of(confirmed, declined, rejected);
    }

    @AfterEach
    void heal() {
        product.healthy();
    }

    @Test
    void shouldPassEveryInvariantOnSettledOrders() {
        Report report = check(settled, Duration.ofSeconds(10));

        assertThat(report.passed()).as(text(report)).isTrue();
        assertThat(report.verdicts()).extracting(Verdict::invariant).containsExactly(Invariant.values());
        assertThat(report.verdicts()).as(text(report)).allSatisfy(v -> assertThat(v.outcome())
                .isEqualTo(Verdict.Outcome.PASS));
    }

    @Test
    void shouldFailNotTerminalOnAnOrderStillPendingAfterTheSettleTimeAndPassOnceItSettles() {
        // Given an order accepted while inventory is down: pending, parked on inventory
        product.inventoryFaults("{\"down\":true}");
        HttpResponse<String> answer = place(1);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);
        UUID pending = TestProduct.orderId(answer);

        // When checked at once, then again after inventory came back, waiting for it to settle
        Report now = check(Set.of(pending), Duration.ZERO);
        product.healthy();
        Report later = check(Set.of(pending), WITHIN);

        // Then only the first check fails, on that order
        assertFailsOnlyOn(now, Invariant.NOT_TERMINAL, pending.toString());
        assertThat(later.passed()).as(text(later)).isTrue();
        assertThat(product.status(pending)).isEqualTo("CONFIRMED");
    }

    @Test
    void shouldFailChargedTwiceOnASecondCapture() {
        String extra = confirmed + ":charge:again";
        sql("INSERT INTO sandbox.charge (idempotency_key, order_id, amount_cents, currency, status)"
                + " VALUES (?, ?, 2500, 'EUR', 'CAPTURED')", extra, confirmed.toString());
        try {
            assertFailsOnlyOn(check(settled), Invariant.CHARGED_TWICE, confirmed.toString());
        } finally {
            sql("UPDATE sandbox.charge SET status = 'REFUNDED' WHERE idempotency_key = ?", extra);
        }
    }

    @Test
    void shouldFailConfirmedWithoutCaptureWhenTheCaptureIsGone() {
        sql("UPDATE sandbox.charge SET status = 'REFUNDED' WHERE idempotency_key = ?", confirmed + ":charge");
        try {
            assertFailsOnlyOn(check(settled), Invariant.CONFIRMED_WITHOUT_CAPTURE, confirmed.toString());
        } finally {
            sql("UPDATE sandbox.charge SET status = 'CAPTURED' WHERE idempotency_key = ?", confirmed + ":charge");
        }
    }

    @Test
    void shouldFailCaptureNotRefundedOnACancelledOrderWithACapture() {
        sql("UPDATE sandbox.charge SET status = 'CAPTURED' WHERE idempotency_key = ?", declined + ":charge");
        try {
            assertFailsOnlyOn(check(settled), Invariant.CAPTURE_NOT_REFUNDED, declined.toString());
        } finally {
            sql("UPDATE sandbox.charge SET status = 'DECLINED' WHERE idempotency_key = ?", declined + ":charge");
        }
    }

    @Test
    void shouldFailStockMismatchWhenAvailableStockDoesNotAddUp() {
        sql("UPDATE sandbox.stock SET available = available - 1 WHERE sku = ?", sku);
        try {
            Report report = check(settled);
            assertFailsOnlyOn(report, Invariant.STOCK_MISMATCH, sku);
            assertThat(report.verdict(Invariant.STOCK_MISMATCH).detail()).contains("available");
        } finally {
            sql("UPDATE sandbox.stock SET available = available + 1 WHERE sku = ?", sku);
        }
    }

    @Test
    void shouldFailReservedNotLiveWhenACancelledOrderHoldsItsReservation() {
        sql("UPDATE sandbox.reservation SET status = 'RESERVED' WHERE reservation_key = ?", declined + ":reserve");
        try {
            assertFailsOnlyOn(check(settled), Invariant.RESERVED_NOT_LIVE, declined.toString());
        } finally {
            sql("UPDATE sandbox.reservation SET status = 'RELEASED' WHERE reservation_key = ?", declined + ":reserve");
        }
    }

    @Test
    void shouldFailOutboxStuckOnAnOldRowTheRelayHoldsBack() {
        // A dead letter of the order makes the relay hold back its later rows (docs/decisions/0010-0012).
        long deadId = -Math.abs(UUID.randomUUID().getMostSignificantBits() % 1_000_000_000L) - 1;
        sql("INSERT INTO outbox_dead_letter (id, aggregate_id, topic, message_id, message_type, payload, created_at,"
                + " error, relay_instance) VALUES (?, ?, ?, ?, 'CheckerIT', '{}', now() - interval '10 minutes',"
                + " 'refused (CheckerIT)', 'checker-it')", deadId, confirmed.toString(), Topics.NOTIFICATIONS,
                UUID.randomUUID());
        sql("INSERT INTO outbox (aggregate_id, topic, message_id, message_type, payload, created_at)"
                + " VALUES (?, ?, ?, 'CheckerIT', '{}', now() - interval '10 minutes')", confirmed.toString(),
                Topics.NOTIFICATIONS, UUID.randomUUID());
        try {
            assertFailsOnlyOn(check(settled), Invariant.OUTBOX_STUCK, confirmed.toString());
        } finally {
            sql("DELETE FROM outbox WHERE aggregate_id = ? AND message_type = 'CheckerIT'", confirmed.toString());
            sql("DELETE FROM outbox_dead_letter WHERE id = ?", deadId);
        }
    }

    @Test
    void shouldFailEventsOutOfOrderOnAnOlderStatusAfterTheOrderWasConfirmed() throws Exception {
        // An order of its own: a record on the topic stays there.
        UUID order = TestProduct.orderId(place(1));
        product.awaitStatus(order, "CONFIRMED", WITHIN);
        String body = "{\"orderId\":\"" + order + "\",\"customerId\":\"c-check\",\"status\":\"AWAITING_PAYMENT\","
                + "\"reason\":\"awaiting_reply\",\"totalCents\":100,\"currency\":\"EUR\",\"sagaVersion\":1,"
                + "\"at\":\"2026-01-01T00:00:00Z\"}";
        ProducerRecord<String, String> late = new ProducerRecord<>(Topics.ORDERS_EVENTS, order.toString(), body);
        late.headers().add(Topics.MESSAGE_ID, UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8));
        late.headers().add(Topics.MESSAGE_TYPE, "OrderStatusChanged".getBytes(StandardCharsets.UTF_8));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(product.settings().kafka().config(),
                new StringSerializer(), new StringSerializer())) {
            producer.send(late).get(10, TimeUnit.SECONDS);
        }

        Report report = check(Set.of(order));

        assertFailsOnlyOn(report, Invariant.EVENTS_OUT_OF_ORDER, order.toString());
        assertThat(report.verdict(Invariant.EVENTS_OUT_OF_ORDER).detail()).contains("version 1");
    }

    @Test
    void shouldFailOpenIncidentsOnASagaWaitingForAnOperator() {
        sql("UPDATE saga_instance SET incident_cause = 'STEP_FAILED', incident_detail = 'CheckerIT', incident_at = now()"
                + " WHERE saga_id = ?", confirmed);
        try {
            Report report = check(settled);
            assertFailsOnlyOn(report, Invariant.OPEN_INCIDENTS, confirmed.toString());
            assertThat(report.verdict(Invariant.OPEN_INCIDENTS).detail()).contains("STEP_FAILED");
        } finally {
            sql("UPDATE saga_instance SET incident_cause = NULL, incident_detail = NULL, incident_at = NULL"
                    + " WHERE saga_id = ?", confirmed);
        }
    }

    @Test
    void shouldFailOpenFindingsOnAnOpenReconciliationFinding() {
        UUID finding = openFinding(declined);
        try {
            assertFailsOnlyOn(check(settled), Invariant.OPEN_FINDINGS, declined.toString());
        } finally {
            sql("DELETE FROM reconciliation_finding WHERE finding_id = ?", finding);
        }
    }

    @Test
    void shouldExitZeroWhenEveryInvariantHoldsAndWriteTheJsonReport() throws Exception {
        Path json = Files.createTempFile("check", ".json");
        Cli cli = cli("--settle", "5", "--order", confirmed.toString(), "--order", declined.toString(),
                "--order=" + rejected, "--json", json.toString());

        assertThat(cli.code()).as(cli.err() + cli.out()).isEqualTo(CheckCommand.HOLDS);
        assertThat(cli.out()).contains("every invariant holds").contains("STOCK_MISMATCH").contains("PASS");
        JsonNode written = TestProduct.read(Files.readString(json));
        assertThat(written.get("passed").asBoolean()).isTrue();
        assertThat(written.get("invariants")).hasSize(Invariant.values().length);
        assertThat(written.get("orders")).hasSize(3);
    }

    @Test
    void shouldExitOneNamingTheInvariantAndTheOrderWhenOneFails() {
        UUID finding = openFinding(confirmed);
        try {
            Cli cli = cli("--settle", "0", "--order", confirmed.toString());

            assertThat(cli.code()).as(cli.err() + cli.out()).isEqualTo(CheckCommand.FAILED);
            assertThat(cli.out()).containsPattern("OPEN_FINDINGS +FAIL +1 +" + confirmed);
        } finally {
            sql("DELETE FROM reconciliation_finding WHERE finding_id = ?", finding);
        }
    }

    @Test
    void shouldExitTwoWithOneLineOnABadCommandLineOrAProductItCannotReach() {
        Cli badNumber = cli("--settle", "soon");
        Cli unknown = cli("--everything");
        Cli badOrder = cli("--order", "not-an-order");
        Map<String, String> nowhere = environment();
        nowhere.put("SAGA_DB_URL", "jdbc:postgresql://127.0.0.1:1/nothing");
        Cli unreachable = cli(nowhere, "--settle", "0");
        Map<String, String> noDatabase = environment();
        noDatabase.remove("SAGA_DB_URL");
        Cli unset = cli(noDatabase, "--settle", "0");

        for (Cli cli : List.of(badNumber, unknown, badOrder, unreachable, unset)) {
            assertThat(cli.code()).as(cli.err()).isEqualTo(CheckCommand.USAGE);
            assertThat(cli.err().lines()).as(cli.err()).hasSize(1);
            assertThat(cli.out()).isEmpty();
        }
        assertThat(badNumber.err()).contains("--settle takes a whole number");
        assertThat(unknown.err()).contains("unknown option --everything");
        assertThat(badOrder.err()).contains("--order takes an order id");
        assertThat(unreachable.err()).contains("cannot reach PostgreSQL at jdbc:postgresql://127.0.0.1:1/nothing");
        assertThat(unset.err()).contains("set SAGA_DB_URL");
        assertThat(cli("--help").code()).isEqualTo(CheckCommand.HOLDS);
    }

    // ---- helpers ----------------------------------------------------------------------------

    private static HttpResponse<String> place(int quantity) {
        return product.submit("check-" + UUID.randomUUID(), TestProduct.order("c-check", sku, quantity, 100));
    }

    private static Report check(Set<UUID> orders) {
        return check(orders, Duration.ZERO);
    }

    private static Report check(Set<UUID> orders, Duration settle) {
        return Checker.run(target, CheckOptions.defaults().withSettle(settle).withOrders(orders));
    }

    private static void assertFailsOnlyOn(Report report, Invariant invariant, String id) {
        assertThat(report.failed()).as(text(report)).containsExactly(invariant);
        Verdict verdict = report.verdict(invariant);
        assertThat(verdict.offendingIds()).as(text(report)).containsExactly(id);
        assertThat(verdict.count()).isEqualTo(1);
    }

    private static UUID openFinding(UUID order) {
        UUID finding = UUID.randomUUID();
        sql("INSERT INTO reconciliation_finding (finding_id, kind, state, order_id, subject, detail, action, repair,"
                + " opened_at) VALUES (?, 'CONFIRMED_NOT_CHARGED', 'OPEN', ?, ?, 'CheckerIT', 'NONE', 'NONE', now())",
                finding, order.toString(), order + ":charge");
        return finding;
    }

    private static String text(Report report) {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        ReportOutput.table(report, new PrintStream(buffer, true, StandardCharsets.UTF_8));
        return buffer.toString(StandardCharsets.UTF_8);
    }

    private static void sql(String statement, Object... arguments) {
        jdbi.useHandle(h -> h.execute(statement, arguments));
    }

    /** The product's own settings as the environment of a separate ./sagas check, pointed at its sandboxes. */
    private static Map<String, String> environment() {
        Map<String, String> env = new HashMap<>(product.settings().raw());
        env.put("SAGA_INVENTORY_URL", product.settings().inventoryUrl());
        env.put("SAGA_PAYMENT_URL", product.settings().paymentUrl());
        return env;
    }

    private record Cli(int code, String out, String err) {}

    private static Cli cli(String... args) {
        return cli(environment(), args);
    }

    private static Cli cli(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.check(args, env::get, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Cli(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
