package org.sagas.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sagas.adapters.http.HttpPaymentClient;
import org.sagas.adapters.http.ParticipantError;
import org.sagas.migrations.Migrations;
import org.sagas.orchestrator.ordering.PaymentProvider.Charge;
import org.sagas.orchestrator.resilience.TransientFailure;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

@RealInfrastructure
class PaymentSandboxIT {
    /** This run\'s ledger token; the controls on, as ./sagas up runs them. */
    private static final String TOKEN = UUID.randomUUID().toString();
    private static final SandboxAccess ACCESS = SandboxAccess.of(true, TOKEN);
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private static DataSource dataSource;
    private static PaymentSandbox sandbox;
    private static PlainHttp http;
    private static HttpPaymentClient client;

    @BeforeAll
    static void startSandbox(TestInfra infra) {
        dataSource = infra.dataSource(20);
        Migrations.apply(dataSource);
        connect(PaymentSandbox.start(dataSource, "127.0.0.1", 0, ACCESS));
    }

    @AfterAll
    static void stopSandbox() {
        sandbox.close();
    }

    @BeforeEach
    void clearFaults() {
        sandbox.setFaults(PaymentFaults.NONE);
    }

    private static void connect(PaymentSandbox started) {
        sandbox = started;
        http = new PlainHttp(started.port(), TOKEN);
        client = new HttpPaymentClient(URI.create("http://127.0.0.1:" + started.port() + "/"));
    }

    // ---- charges -----------------------------------------------------------------------------

    @Test
    void shouldCaptureAChargeAndAnswerTheStoredRowOnReplay() {
        // Given an order
        UUID order = UUID.randomUUID();
        // When it is charged, and the charge replayed through the client and as plain HTTP
        Charge first = client.charge(order + ":charge", order, 2_500, "EUR", TIMEOUT);
        Charge replayed = client.charge(order + ":charge", order, 2_500, "EUR", TIMEOUT);
        PlainHttp.Answer plain = http.post("/charges", chargeBody(order, 2_500), "Idempotency-Key", order + ":charge");
        // Then each answers CAPTURED, and the ledger has one row
        assertThat(first).isEqualTo(Charge.CAPTURED);
        assertThat(replayed).isEqualTo(Charge.CAPTURED);
        assertThat(plain.status()).isEqualTo(200);
        assertThat(plain.json().get("idempotencyKey").asText()).isEqualTo(order + ":charge");
        assertThat(plain.json().get("status").asText()).isEqualTo("CAPTURED");
        JsonNode ledger = ledger(order);
        assertThat(ledger).hasSize(1);
        assertThat(ledger.get(0).get("orderId").asText()).isEqualTo(order.toString());
        assertThat(ledger.get(0).get("amountCents").asLong()).isEqualTo(2_500);
        assertThat(ledger.get(0).get("currency").asText()).isEqualTo("EUR");
        assertThat(ledger.get(0).get("status").asText()).isEqualTo("CAPTURED");
    }

    @Test
    void shouldRecordADeclineAndAnswerItAgainOnReplay() {
        // Given every charge declined
        UUID order = UUID.randomUUID();
        http.put("/_faults", "{\"declineRate\":1.0}");
        // When an order is charged, then replayed after declines stopped
        Charge declined = client.charge(order + ":charge", order, 900, "EUR", TIMEOUT);
        http.put("/_faults", "{\"declineRate\":0.0}");
        Charge replayed = client.charge(order + ":charge", order, 900, "EUR", TIMEOUT);
        // Then both say DECLINED: the outcome was recorded
        assertThat(declined).isEqualTo(Charge.DECLINED);
        assertThat(replayed).isEqualTo(Charge.DECLINED);
        assertThat(client.lookup(order + ":charge", TIMEOUT)).contains(Charge.DECLINED);
    }

    @Test
    void shouldDeclineAboutTheInjectedShareOfCharges() {
        // Given a decline rate of 50 %
        sandbox.setFaults(new PaymentFaults(0, 0.5, false, false));
        // When 200 orders are charged
        int declined = 0;
        for (int i = 0; i < 200; i++) {
            UUID order = UUID.randomUUID();
            if (client.charge(order + ":charge", order, 100, "EUR", TIMEOUT) == Charge.DECLINED) {
                declined++;
            }
        }
        // Then about half were declined (4+ standard deviations either side)
        assertThat(declined).isBetween(70, 130);
    }

    @Test
    void shouldChargeOnceWhenDuplicatesRace() throws Exception {
        // Given one order
        UUID order = UUID.randomUUID();
        ExecutorService threads = Executors.newFixedThreadPool(20);
        CountDownLatch start = new CountDownLatch(1);
        try {
            // When 20 charges with the same key arrive at once
            List<Future<Charge>> answers = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                answers.add(threads.submit(() -> {
                    start.await();
                    return client.charge(order + ":charge", order, 4_200, "EUR", Duration.ofSeconds(20));
                }));
            }
            start.countDown();
            for (Future<Charge> answer : answers) {
                // Then every one answers the same capture
                assertThat(answer.get(30, TimeUnit.SECONDS)).isEqualTo(Charge.CAPTURED);
            }
        } finally {
            threads.shutdownNow();
        }
        // And the ledger has one row
        assertThat(ledger(order)).hasSize(1);
    }

    @Test
    void shouldKeepTheChargeButLoseItsAnswerWhenTimeoutAfterCharge() {
        // Given a provider that charges, then loses the answer
        UUID order = UUID.randomUUID();
        http.put("/_faults", "{\"timeoutAfterCharge\":true}");
        // When an order is charged with a short timeout
        long started = System.nanoTime();
        assertThatThrownBy(() -> client.charge(order + ":charge", order, 1_999, "EUR", Duration.ofMillis(300)))
                // Then the client gives up with a transient failure, on time
                .isInstanceOf(TransientFailure.class).hasMessageContaining("timed out");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
        // And a look-up and a retry with the same key find the capture
        assertThat(client.lookup(order + ":charge", TIMEOUT)).contains(Charge.CAPTURED);
        assertThat(client.charge(order + ":charge", order, 1_999, "EUR", TIMEOUT)).isEqualTo(Charge.CAPTURED);
        // And there is one capture in the ledger
        JsonNode ledger = ledger(order);
        assertThat(ledger).hasSize(1);
        assertThat(ledger.get(0).get("status").asText()).isEqualTo("CAPTURED");
    }

    @Test
    void shouldAnswerEmptyWhenLookingUpAnUnknownKey() {
        // When a key the provider never saw is looked up
        Optional<Charge> found = client.lookup("never-seen:" + UUID.randomUUID(), TIMEOUT);
        // Then nothing is found
        assertThat(found).isEmpty();
        assertThat(http.get("/charges/never-seen").status()).isEqualTo(404);
    }

    // ---- refunds -----------------------------------------------------------------------------

    @Test
    void shouldRefundACaptureOnce() {
        // Given a capture
        UUID order = UUID.randomUUID();
        client.charge(order + ":charge", order, 3_000, "EUR", TIMEOUT);
        // When it is refunded, the refund replayed, and refunded again under another key
        Charge refunded = client.refund(order + ":refund", order + ":charge", TIMEOUT);
        Charge replayed = client.refund(order + ":refund", order + ":charge", TIMEOUT);
        Charge again = client.refund(order + ":refund-again", order + ":charge", TIMEOUT);
        // Then each answers REFUNDED and the ledger has the one row, refunded
        assertThat(List.of(refunded, replayed, again)).containsOnly(Charge.REFUNDED);
        JsonNode ledger = ledger(order);
        assertThat(ledger).hasSize(1);
        assertThat(ledger.get(0).get("status").asText()).isEqualTo("REFUNDED");
        assertThat(client.lookup(order + ":charge", TIMEOUT)).contains(Charge.REFUNDED);
    }

    @Test
    void shouldLeaveADeclineAsItIsWhenRefunded() {
        // Given a declined charge
        UUID order = UUID.randomUUID();
        sandbox.setFaults(new PaymentFaults(0, 1.0, false, false));
        client.charge(order + ":charge", order, 3_000, "EUR", TIMEOUT);
        // When it is refunded
        Charge answer = client.refund(order + ":refund", order + ":charge", TIMEOUT);
        // Then nothing was captured, so nothing changes
        assertThat(answer).isEqualTo(Charge.DECLINED);
        assertThat(ledger(order).get(0).get("status").asText()).isEqualTo("DECLINED");
    }

    @Test
    void shouldRejectARefundOfAnUnknownCharge() {
        // When a charge the provider never saw is refunded
        // Then it is rejected as not found
        assertThatThrownBy(() -> client.refund("r:" + UUID.randomUUID(), "c:" + UUID.randomUUID(), TIMEOUT))
                .isInstanceOfSatisfying(ParticipantError.class, e -> assertThat(e.status()).isEqualTo(404));
    }

    // ---- the ledger --------------------------------------------------------------------------

    @Test
    void shouldListTheLedgerOfAnOrderOrOfEveryOrder() {
        // Given two orders charged
        UUID one = UUID.randomUUID();
        UUID other = UUID.randomUUID();
        client.charge(one + ":charge", one, 100, "EUR", TIMEOUT);
        client.charge(other + ":charge", other, 200, "USD", TIMEOUT);
        // When the ledger is read for one order, and whole
        JsonNode ofOne = ledger(one);
        JsonNode all = http.get("/charges").json();
        // Then the first has only that order's charge, the second both
        assertThat(ofOne).hasSize(1);
        assertThat(ofOne.get(0).get("idempotencyKey").asText()).isEqualTo(one + ":charge");
        List<String> keys = new ArrayList<>();
        all.forEach(row -> keys.add(row.get("idempotencyKey").asText()));
        assertThat(keys).contains(one + ":charge", other + ":charge");
        assertThat(all.get(0).fieldNames()).toIterable()
                .containsExactly("idempotencyKey", "orderId", "amountCents", "currency", "status");
    }

    // ---- faults ------------------------------------------------------------------------------

    @Test
    void shouldRefuseEveryOperationWhileDownButStillShowTheLedger() {
        // Given a capture, then the provider down
        UUID order = UUID.randomUUID();
        client.charge(order + ":charge", order, 500, "EUR", TIMEOUT);
        sandbox.setFaults(new PaymentFaults(0, 0.0, true, false));
        UUID other = UUID.randomUUID();
        // When charging, looking up and refunding
        // Then each fails transiently and nothing changes
        assertThatThrownBy(() -> client.charge(other + ":charge", other, 500, "EUR", TIMEOUT))
                .isInstanceOf(TransientFailure.class).hasMessageContaining("503");
        assertThatThrownBy(() -> client.lookup(order + ":charge", TIMEOUT))
                .isInstanceOf(TransientFailure.class).hasMessageContaining("503");
        assertThatThrownBy(() -> client.refund(order + ":refund", order + ":charge", TIMEOUT))
                .isInstanceOf(TransientFailure.class).hasMessageContaining("503");
        assertThat(ledger(order).get(0).get("status").asText()).isEqualTo("CAPTURED");
        assertThat(ledger(other)).isEmpty();
        assertThat(http.get("/_faults").json().get("down").asBoolean()).isTrue();
    }

    @Test
    void shouldWaitTheInjectedLatencyBeforeAnswering() {
        // Given 300 ms of latency
        UUID order = UUID.randomUUID();
        http.put("/_faults", "{\"latencyMs\":300}");
        // When an order is charged
        long started = System.nanoTime();
        Charge answer = client.charge(order + ":charge", order, 100, "EUR", TIMEOUT);
        // Then it is answered after the latency
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        assertThat(answer).isEqualTo(Charge.CAPTURED);
    }

    @Test
    void shouldKeepFaultsLeftOutOfAPatch() {
        // Given declines and a latency set
        http.put("/_faults", "{\"declineRate\":0.5,\"latencyMs\":20}");
        // When only timeoutAfterCharge is patched
        PlainHttp.Answer patched = http.put("/_faults", "{\"timeoutAfterCharge\":true}");
        // Then the others are kept
        assertThat(patched.status()).isEqualTo(200);
        assertThat(sandbox.faults()).isEqualTo(new PaymentFaults(20, 0.5, false, true));
        JsonNode faults = http.get("/_faults").json();
        assertThat(faults.get("declineRate").asDouble()).isEqualTo(0.5);
        assertThat(faults.get("timeoutAfterCharge").asBoolean()).isTrue();
    }

    // ---- validation --------------------------------------------------------------------------

    @Test
    void shouldRejectInvalidRequestsWith400NamingTheFieldAndChangeNothing() {
        // Given an order and known faults
        UUID order = UUID.randomUUID();
        String key = order + ":charge";
        // When invalid requests are sent
        // Then each is a 400 problem naming the field
        assertProblem(http.post("/charges", chargeBody(order, 100)), "Idempotency-Key");
        assertProblem(http.post("/charges", "{\"orderId\"", "Idempotency-Key", key), "body");
        assertProblem(http.post("/charges", chargeBody(order, -1), "Idempotency-Key", key), "amountCents");
        assertProblem(http.post("/charges", "{\"orderId\":\"" + order + "\",\"amountCents\":1,\"currency\":\"eur\"}",
                "Idempotency-Key", key), "currency");
        assertProblem(http.post("/charges", "{\"amountCents\":1,\"currency\":\"EUR\"}", "Idempotency-Key", key),
                "orderId");
        assertProblem(http.post("/refunds", "{}", "Idempotency-Key", "refund"), "chargeKey");
        assertProblem(http.put("/_faults", "{\"declineRate\":2}"), "declineRate");
        assertProblem(http.put("/_faults", "{\"timeoutAfterCharge\":\"no\"}"), "timeoutAfterCharge");
        assertProblem(http.put("/_faults", "{\"latencyMs\":-1}"), "latencyMs");
        assertThatThrownBy(() -> client.charge(key, order, 100, "euro", TIMEOUT))
                .isInstanceOfSatisfying(ParticipantError.class, e -> assertThat(e.status()).isEqualTo(400));
        // And nothing changed
        assertThat(ledger(order)).isEmpty();
        assertThat(sandbox.faults()).isEqualTo(PaymentFaults.NONE);
    }

    // ---- restart -----------------------------------------------------------------------------

    @Test
    void shouldKeepTheLedgerWhenRestartedOnTheSameDatabase() {
        // Given a capture and a refund
        UUID captured = UUID.randomUUID();
        UUID refunded = UUID.randomUUID();
        client.charge(captured + ":charge", captured, 700, "EUR", TIMEOUT);
        client.charge(refunded + ":charge", refunded, 800, "EUR", TIMEOUT);
        client.refund(refunded + ":refund", refunded + ":charge", TIMEOUT);
        // When the provider is stopped and started again on the same database
        sandbox.close();
        connect(PaymentSandbox.start(dataSource, "127.0.0.1", 0, ACCESS));
        // Then both are still there and replays answer them
        assertThat(client.lookup(captured + ":charge", TIMEOUT)).contains(Charge.CAPTURED);
        assertThat(client.charge(refunded + ":charge", refunded, 800, "EUR", TIMEOUT)).isEqualTo(Charge.REFUNDED);
        assertThat(ledger(captured)).hasSize(1);
    }

    // ---- helpers -----------------------------------------------------------------------------

    private static void assertProblem(PlainHttp.Answer answer, String field) {
        assertThat(answer.status()).as(answer.body()).isEqualTo(400);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        JsonNode problem = answer.json();
        assertThat(problem.get("type").asText()).isNotBlank();
        assertThat(problem.get("title").asText()).isNotBlank();
        assertThat(problem.get("status").asInt()).isEqualTo(400);
        assertThat(problem.get("detail").asText()).contains(field);
        assertThat(problem.get("field").asText()).isEqualTo(field);
    }

    private static JsonNode ledger(UUID order) {
        PlainHttp.Answer answer = http.get("/charges?orderId=" + order);
        assertThat(answer.status()).isEqualTo(200);
        return answer.json();
    }

    private static String chargeBody(UUID order, long amountCents) {
        return "{\"orderId\":\"" + order + "\",\"amountCents\":" + amountCents + ",\"currency\":\"EUR\"}";
    }
}
