package org.sagas.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
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
import org.sagas.adapters.http.HttpInventoryClient;
import org.sagas.adapters.http.ParticipantError;
import org.sagas.migrations.Migrations;
import org.sagas.orchestrator.ordering.OrderLine;
import org.sagas.orchestrator.ordering.InventoryPort.Reservation;
import org.sagas.orchestrator.resilience.TransientFailure;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

@RealInfrastructure
class InventorySandboxIT {
    /** This run\'s ledger token; the controls on, as ./sagas up runs them. */
    private static final String TOKEN = UUID.randomUUID().toString();
    private static final SandboxAccess ACCESS = SandboxAccess.of(true, TOKEN);
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final long NO_DEADLINE = 0;

    private static DataSource dataSource;
    private static InventorySandbox sandbox;
    private static PlainHttp http;
    private static HttpInventoryClient client;

    @BeforeAll
    static void startSandbox(TestInfra infra) {
        dataSource = infra.dataSource(20);
        Migrations.apply(dataSource);
        connect(InventorySandbox.start(dataSource, "127.0.0.1", 0, ACCESS));
    }

    @AfterAll
    static void stopSandbox() {
        sandbox.close();
    }

    @BeforeEach
    void clearFaults() {
        sandbox.setFaults(InventoryFaults.NONE);
    }

    private static void connect(InventorySandbox started) {
        sandbox = started;
        http = new PlainHttp(started.port(), TOKEN);
        client = new HttpInventoryClient(URI.create("http://127.0.0.1:" + started.port()));
    }

    // ---- stock -----------------------------------------------------------------------------

    @Test
    void shouldSetAndReadStock() {
        // Given a SKU nobody has stocked
        String sku = sku();
        assertThat(stock(sku)).isEqualTo(new long[] {0, 0});
        // When its stock is set
        PlainHttp.Answer put = http.put("/stock/" + sku, "{\"available\":7}");
        // Then it reads back with nothing reserved
        assertThat(put.status()).isEqualTo(200);
        JsonNode read = http.get("/stock/" + sku).json();
        assertThat(read.get("sku").asText()).isEqualTo(sku);
        assertThat(read.get("available").asLong()).isEqualTo(7);
        assertThat(read.get("reserved").asLong()).isZero();
    }

    @Test
    void shouldRecordWhatASkuIsStockedWithCountingWhatReservationsHoldWhenItIsSet() {
        // Given a SKU stocked with 5, 2 of them reserved
        String sku = stocked(5);
        UUID order = UUID.randomUUID();
        assertThat(client.reserve(order + ":reserve", order, List.of(line(sku, 2)), TIMEOUT, NO_DEADLINE))
                .isEqualTo(Reservation.RESERVED);
        assertThat(http.get("/stock/" + sku).json().get("stocked").asLong()).isEqualTo(5);
        // When its available stock is set to 10 while the reservation holds 2
        http.put("/stock/" + sku, "{\"available\":10}");
        // Then it is stocked with 12, and a release keeps stocked - reserved = available
        assertThat(http.get("/stock/" + sku).json().get("stocked").asLong()).isEqualTo(12);
        client.release(order + ":release", order + ":reserve", order, TIMEOUT, NO_DEADLINE);
        JsonNode after = http.get("/stock/" + sku).json();
        assertThat(after.get("stocked").asLong() - after.get("reserved").asLong())
                .isEqualTo(after.get("available").asLong()).isEqualTo(12);
    }

    // ---- reserve and release ---------------------------------------------------------------

    @Test
    void shouldReserveEveryLineAndHoldItsStock() {
        // Given two stocked SKUs
        String a = stocked(5);
        String b = stocked(3);
        UUID order = UUID.randomUUID();
        // When an order reserves from both
        Reservation answer = client.reserve(order + ":reserve", order, List.of(line(a, 2), line(b, 3)), TIMEOUT,
                System.currentTimeMillis() + 5_000);
        // Then both are held and the reservation is listed for the order
        assertThat(answer).isEqualTo(Reservation.RESERVED);
        assertThat(stock(a)).isEqualTo(new long[] {3, 2});
        assertThat(stock(b)).isEqualTo(new long[] {0, 3});
        JsonNode listed = http.get("/reservations?orderId=" + order).json();
        assertThat(listed).hasSize(1);
        assertThat(listed.get(0).get("key").asText()).isEqualTo(order + ":reserve");
        assertThat(listed.get(0).get("orderId").asText()).isEqualTo(order.toString());
        assertThat(listed.get(0).get("status").asText()).isEqualTo("RESERVED");
        assertThat(listed.get(0).get("lines")).hasSize(2);
    }

    @Test
    void shouldReserveNothingWhenOneLineIsOutOfStock() {
        // Given one SKU with enough stock and one without
        String plenty = stocked(5);
        String scarce = stocked(1);
        UUID order = UUID.randomUUID();
        // When an order asks for more of the scarce one than there is
        Reservation answer = client.reserve(order + ":reserve", order, List.of(line(plenty, 2), line(scarce, 2)),
                TIMEOUT, NO_DEADLINE);
        // Then nothing is held, and the refusal is recorded
        assertThat(answer).isEqualTo(Reservation.OUT_OF_STOCK);
        assertThat(stock(plenty)).isEqualTo(new long[] {5, 0});
        assertThat(stock(scarce)).isEqualTo(new long[] {1, 0});
        assertThat(http.get("/reservations?orderId=" + order).json().get(0).get("status").asText())
                .isEqualTo("OUT_OF_STOCK");
    }

    @Test
    void shouldAnswerTheStoredAnswerWithoutASecondEffectWhenAKeyIsReplayed() {
        // Given a reservation made, and a refusal recorded
        String sku = stocked(3);
        UUID order = UUID.randomUUID();
        UUID refused = UUID.randomUUID();
        assertThat(client.reserve(order + ":reserve", order, List.of(line(sku, 2)), TIMEOUT, NO_DEADLINE))
                .isEqualTo(Reservation.RESERVED);
        assertThat(client.reserve(refused + ":reserve", refused, List.of(line(sku, 2)), TIMEOUT, NO_DEADLINE))
                .isEqualTo(Reservation.OUT_OF_STOCK);
        // When both keys are replayed, the refusal after stock was added
        http.put("/stock/" + sku, "{\"available\":10}");
        Reservation replayed = client.reserve(order + ":reserve", order, List.of(line(sku, 2)), TIMEOUT, NO_DEADLINE);
        Reservation refusedAgain = client.reserve(refused + ":reserve", refused, List.of(line(sku, 2)), TIMEOUT,
                NO_DEADLINE);
        // Then each answers as before and the stock was taken once
        assertThat(replayed).isEqualTo(Reservation.RESERVED);
        assertThat(refusedAgain).isEqualTo(Reservation.OUT_OF_STOCK);
        assertThat(stock(sku)).isEqualTo(new long[] {10, 2});
        assertThat(http.get("/reservations?orderId=" + order).json()).hasSize(1);
    }

    @Test
    void shouldReturnStockOnceWhenAReservationIsReleasedRepeatedly() {
        // Given a reservation of 4
        String sku = stocked(10);
        UUID order = UUID.randomUUID();
        client.reserve(order + ":reserve", order, List.of(line(sku, 4)), TIMEOUT, NO_DEADLINE);
        assertThat(stock(sku)).isEqualTo(new long[] {6, 4});
        // When it is released, the release replayed, and released again under another key
        client.release(order + ":release", order + ":reserve", order, TIMEOUT, NO_DEADLINE);
        client.release(order + ":release", order + ":reserve", order, TIMEOUT, NO_DEADLINE);
        client.release(order + ":release-again", order + ":reserve", order, TIMEOUT, NO_DEADLINE);
        // Then the stock came back once
        assertThat(stock(sku)).isEqualTo(new long[] {10, 0});
        assertThat(http.get("/reservations/" + order + ":reserve").json().get("status").asText())
                .isEqualTo("RELEASED");
        // And a late replay of the reservation holds nothing
        assertThat(client.reserve(order + ":reserve", order, List.of(line(sku, 4)), TIMEOUT, NO_DEADLINE))
                .isEqualTo(Reservation.OUT_OF_STOCK);
        assertThat(stock(sku)).isEqualTo(new long[] {10, 0});
    }

    @Test
    void shouldMakeALateReservationANoOpWhenItsReleaseArrivedFirst() {
        // Given a release for a reservation the service never saw
        String sku = stocked(5);
        UUID order = UUID.randomUUID();
        client.release(order + ":release", order + ":reserve", order, TIMEOUT, NO_DEADLINE);
        JsonNode tombstone = http.get("/reservations?orderId=" + order).json();
        assertThat(tombstone).hasSize(1);
        assertThat(tombstone.get(0).get("status").asText()).isEqualTo("RELEASED");
        assertThat(tombstone.get(0).get("lines")).isEmpty();
        // When the reservation arrives late, through the client and as plain HTTP
        Reservation late = client.reserve(order + ":reserve", order, List.of(line(sku, 2)), TIMEOUT, NO_DEADLINE);
        PlainHttp.Answer plain = http.post("/reservations", reserveBody(order, sku, 2),
                "Idempotency-Key", order + ":reserve");
        // Then it holds nothing: the client reads OUT_OF_STOCK, the service says RELEASED
        assertThat(late).isEqualTo(Reservation.OUT_OF_STOCK);
        assertThat(plain.status()).isEqualTo(200);
        assertThat(plain.json().get("status").asText()).isEqualTo("RELEASED");
        assertThat(stock(sku)).isEqualTo(new long[] {5, 0});
    }

    @Test
    void shouldNotOversellWhenFiftyReservationsRace() throws Exception {
        // Given 20 of one SKU and 30 of another
        String a = stocked(20);
        String b = stocked(30);
        ExecutorService threads = Executors.newFixedThreadPool(50);
        CountDownLatch start = new CountDownLatch(1);
        try {
            // When 50 orders each reserve one of both at once, half naming the lines in reverse
            List<Future<Reservation>> answers = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                UUID order = UUID.randomUUID();
                List<OrderLine> lines = i % 2 == 0 ? List.of(line(a, 1), line(b, 1)) : List.of(line(b, 1), line(a, 1));
                answers.add(threads.submit(() -> {
                    start.await();
                    return client.reserve(order + ":reserve", order, lines, Duration.ofSeconds(20), NO_DEADLINE);
                }));
            }
            start.countDown();
            List<Reservation> results = new ArrayList<>();
            for (Future<Reservation> answer : answers) {
                results.add(answer.get(30, TimeUnit.SECONDS));
            }
            // Then exactly 20 won, and neither SKU went below zero
            assertThat(results).filteredOn(r -> r == Reservation.RESERVED).hasSize(20);
            assertThat(results).filteredOn(r -> r == Reservation.OUT_OF_STOCK).hasSize(30);
            assertThat(stock(a)).isEqualTo(new long[] {0, 20});
            assertThat(stock(b)).isEqualTo(new long[] {10, 20});
        } finally {
            threads.shutdownNow();
        }
    }

    // ---- faults ------------------------------------------------------------------------------

    @Test
    void shouldRefuseAtOnceWhileDownAndAnswerAgainWhenBack() {
        // Given a stocked SKU and the service down
        String sku = stocked(5);
        UUID order = UUID.randomUUID();
        assertThat(http.put("/_faults", "{\"down\":true}").status()).isEqualTo(200);
        // When an order reserves, and another releases
        // Then both fail transiently, while /stock and /_faults still answer
        assertThatThrownBy(() -> client.reserve(order + ":reserve", order, List.of(line(sku, 1)), TIMEOUT, NO_DEADLINE))
                .isInstanceOf(TransientFailure.class).hasMessageContaining("503");
        assertThatThrownBy(() -> client.release(order + ":release", order + ":reserve", order, TIMEOUT, NO_DEADLINE))
                .isInstanceOf(TransientFailure.class).hasMessageContaining("503");
        assertThat(stock(sku)).isEqualTo(new long[] {5, 0});
        assertThat(http.get("/_faults").json().get("down").asBoolean()).isTrue();
        assertThat(http.get("/reservations?orderId=" + order).json()).isEmpty();
        // When it is brought back
        http.put("/_faults", "{\"down\":false}");
        // Then it reserves again
        assertThat(client.reserve(order + ":reserve", order, List.of(line(sku, 1)), TIMEOUT, NO_DEADLINE))
                .isEqualTo(Reservation.RESERVED);
    }

    @Test
    void shouldFailAboutTheInjectedShareOfRequestsWithoutEffect() {
        // Given plenty of stock and an error rate of 30 %
        String sku = stocked(1_000);
        sandbox.setFaults(new InventoryFaults(0, 0.3, false));
        // When 200 orders reserve one each
        int failed = 0;
        for (int i = 0; i < 200; i++) {
            UUID order = UUID.randomUUID();
            try {
                client.reserve(order + ":reserve", order, List.of(line(sku, 1)), TIMEOUT, NO_DEADLINE);
            } catch (TransientFailure e) {
                failed++;
            }
        }
        // Then about 30 % failed (4+ standard deviations either side), and only successes hold stock
        assertThat(failed).isBetween(30, 90);
        assertThat(stock(sku)).isEqualTo(new long[] {1_000 - (200 - failed), 200 - failed});
    }

    @Test
    void shouldWaitTheInjectedLatencyBeforeAnswering() {
        // Given 400 ms of latency
        String sku = stocked(5);
        UUID order = UUID.randomUUID();
        http.put("/_faults", "{\"latencyMs\":400}");
        // When an order reserves with a deadline well after it
        long started = System.nanoTime();
        Reservation answer = client.reserve(order + ":reserve", order, List.of(line(sku, 1)), TIMEOUT,
                System.currentTimeMillis() + 3_000);
        // Then it is answered after the latency, with the work done
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(400));
        assertThat(answer).isEqualTo(Reservation.RESERVED);
        assertThat(stock(sku)).isEqualTo(new long[] {4, 1});
    }

    @Test
    void shouldAnswer504WithoutEffectWhenTheDeadlineHasPassedOnArrival() {
        // Given a caller whose deadline passed a second ago
        String sku = stocked(5);
        UUID order = UUID.randomUUID();
        long passed = System.currentTimeMillis() - 1_000;
        // When it reserves through the client and as plain HTTP
        assertThatThrownBy(() -> client.reserve(order + ":reserve", order, List.of(line(sku, 1)), TIMEOUT, passed))
                .isInstanceOf(TransientFailure.class).hasMessageContaining("504");
        PlainHttp.Answer plain = http.post("/reservations", reserveBody(order, sku, 1),
                "Idempotency-Key", order + ":reserve", "X-Deadline", Long.toString(passed));
        // Then it is answered 504 and nothing was reserved
        assertThat(plain.status()).isEqualTo(504);
        assertThat(plain.contentType()).startsWith("application/problem+json");
        assertThat(stock(sku)).isEqualTo(new long[] {5, 0});
        assertThat(http.get("/reservations?orderId=" + order).json()).isEmpty();
    }

    @Test
    void shouldAnswer504AtTheDeadlineWithoutEffectWhenTheLatencyOutlastsIt() {
        // Given 1.5 s of latency and a caller with 300 ms left
        String sku = stocked(5);
        UUID order = UUID.randomUUID();
        sandbox.setFaults(new InventoryFaults(1_500, 0.0, false));
        long deadline = System.currentTimeMillis() + 300;
        // When it reserves
        long started = System.nanoTime();
        PlainHttp.Answer answer = http.post("/reservations", reserveBody(order, sku, 1),
                "Idempotency-Key", order + ":reserve", "X-Deadline", Long.toString(deadline));
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        // Then it is answered 504 at the deadline, not after the latency
        assertThat(answer.status()).isEqualTo(504);
        assertThat(answer.json().get("status").asInt()).isEqualTo(504);
        assertThat(took).isBetween(Duration.ofMillis(250), Duration.ofMillis(1_200));
        // And no reservation appears, even once the latency would have passed
        await().during(Duration.ofMillis(1_500)).atMost(Duration.ofSeconds(4))
                .until(() -> http.get("/reservations?orderId=" + order).json().isEmpty()
                        && stock(sku)[0] == 5);
    }

    @Test
    void shouldHoldHundredsOfWaitingRequestsAtOnce() {
        // Given a second of latency
        String sku = stocked(1_000);
        sandbox.setFaults(new InventoryFaults(1_000, 0.0, false));
        // When 300 reservations arrive together (more than the server has threads)
        long started = System.nanoTime();
        List<CompletableFuture<PlainHttp.Answer>> answers = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            UUID order = UUID.randomUUID();
            answers.add(http.postAsync("/reservations", reserveBody(order, sku, 1), "Idempotency-Key", order + ":r"));
        }
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).join();
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        // Then every one is answered, all after about one latency rather than one after another
        assertThat(answers).allSatisfy(answer -> assertThat(answer.join().status()).isEqualTo(200));
        assertThat(took).isBetween(Duration.ofMillis(1_000), Duration.ofSeconds(15));
        assertThat(stock(sku)).isEqualTo(new long[] {700, 300});
    }

    @Test
    void shouldKeepFaultsLeftOutOfAPatch() {
        // Given a latency set
        assertThat(http.put("/_faults", "{\"latencyMs\":250}").json().get("latencyMs").asLong()).isEqualTo(250);
        // When only the error rate is patched
        PlainHttp.Answer patched = http.put("/_faults", "{\"errorRate\":0.25}");
        // Then the latency is kept, in the answer, in GET /_faults and in process
        assertThat(patched.status()).isEqualTo(200);
        JsonNode faults = http.get("/_faults").json();
        assertThat(faults.get("latencyMs").asLong()).isEqualTo(250);
        assertThat(faults.get("errorRate").asDouble()).isEqualTo(0.25);
        assertThat(faults.get("down").asBoolean()).isFalse();
        assertThat(sandbox.faults()).isEqualTo(new InventoryFaults(250, 0.25, false));
    }

    // ---- validation --------------------------------------------------------------------------

    @Test
    void shouldRejectInvalidStockAndFaultsWith400NamingTheFieldAndChangeNothing() {
        // Given a stocked SKU and known faults
        String sku = stocked(5);
        sandbox.setFaults(new InventoryFaults(10, 0.0, false));
        // When invalid bodies are sent
        // Then each is a 400 problem naming the field
        assertProblem(http.put("/stock/" + sku, "{\"available\":"), "body");
        assertProblem(http.put("/stock/" + sku, "[1]"), "body");
        assertProblem(http.put("/stock/" + sku, "{\"available\":-1}"), "available");
        assertProblem(http.put("/stock/" + sku, "{\"available\":\"5\"}"), "available");
        assertProblem(http.put("/stock/" + sku, "{\"available\":1.5}"), "available");
        assertProblem(http.put("/stock/" + sku, "{}"), "available");
        assertProblem(http.put("/_faults", "{\"latencyMs\":120001}"), "latencyMs");
        assertProblem(http.put("/_faults", "{\"latencyMs\":5,\"errorRate\":1.5}"), "errorRate");
        assertProblem(http.put("/_faults", "{\"down\":\"yes\"}"), "down");
        assertProblem(http.put("/_faults", "{\"down\":null}"), "down");
        assertProblem(http.put("/_faults", "{\"latency\":5}"), "latency");
        // And nothing changed
        assertThat(stock(sku)).isEqualTo(new long[] {5, 0});
        assertThat(sandbox.faults()).isEqualTo(new InventoryFaults(10, 0.0, false));
    }

    @Test
    void shouldRejectInvalidReservationsWith400NamingTheFieldAndChangeNothing() {
        // Given a stocked SKU
        String sku = stocked(5);
        UUID order = UUID.randomUUID();
        String key = order + ":reserve";
        // When invalid reservations are sent
        // Then each is a 400 problem naming the field, and the client reports it as a rejection
        assertProblem(http.post("/reservations", reserveBody(order, sku, 1)), "Idempotency-Key");
        assertProblem(http.post("/reservations", "{\"orderId\":", "Idempotency-Key", key), "body");
        assertProblem(http.post("/reservations", "{\"lines\":[{\"sku\":\"" + sku + "\",\"quantity\":1}]}",
                "Idempotency-Key", key), "orderId");
        assertProblem(http.post("/reservations", "{\"orderId\":\"" + order + "\",\"lines\":[]}",
                "Idempotency-Key", key), "lines");
        assertProblem(http.post("/reservations", reserveBody(order, sku, 0), "Idempotency-Key", key),
                "lines[0].quantity");
        assertProblem(http.post("/reservations", "{\"orderId\":\"" + order + "\",\"lines\":[{\"quantity\":1}]}",
                "Idempotency-Key", key), "lines[0].sku");
        assertProblem(http.post("/reservations", reserveBody(order, sku, 1), "Idempotency-Key", key,
                "X-Deadline", "soon"), "X-Deadline");
        assertProblem(http.post("/reservations/" + key + "/release", "{}", "Idempotency-Key", "r"), "orderId");
        assertThatThrownBy(() -> client.reserve(key, order, List.of(line("x".repeat(65), 1)), TIMEOUT, NO_DEADLINE))
                .isInstanceOfSatisfying(ParticipantError.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.body()).contains("lines[0].sku");
                });
        // And nothing changed
        assertThat(stock(sku)).isEqualTo(new long[] {5, 0});
        assertThat(http.get("/reservations?orderId=" + order).json()).isEmpty();
    }

    @Test
    void shouldTakeEverySkuTheOrdersApiTakesAndRefuseWhatItRefuses() {
        // Given SKUs at the API's limits (Limits): 64 code points, here 128 UTF-16 units, and 1
        String longest = "\uD83D\uDCE6".repeat(63) + sku().substring(0, 1);
        String shortest = "\u00e9";
        for (String sku : List.of(longest, shortest)) {
            assertThat(http.put("/stock/" + encoded(sku), "{\"available\":3}").status()).isEqualTo(200);
        }
        UUID order = UUID.randomUUID();
        // When an order reserves both
        Reservation answer = client.reserve(order + ":reserve", order, List.of(line(longest, 1), line(shortest, 2)),
                TIMEOUT, NO_DEADLINE);
        // Then it holds them; and one code point more, or a control character, is refused like the API does
        assertThat(answer).isEqualTo(Reservation.RESERVED);
        assertThat(http.get("/stock/" + encoded(longest)).json().get("reserved").asLong()).isEqualTo(1);
        for (String bad : List.of(longest + "x", "a\u0007b", "a\u200Bb")) {
            UUID other = UUID.randomUUID();
            assertThatThrownBy(() -> client.reserve(other + ":reserve", other, List.of(line(bad, 1)), TIMEOUT,
                    NO_DEADLINE)).isInstanceOfSatisfying(ParticipantError.class, e -> {
                        assertThat(e.status()).isEqualTo(400);
                        assertThat(e.body()).contains("lines[0].sku");
                    });
        }
    }

    private static String encoded(String segment) {
        return java.net.URLEncoder.encode(segment, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
    }

    @Test
    void shouldAnswerAProblemForAnUnknownPath() {
        // When a path the service does not have is asked for
        PlainHttp.Answer answer = http.get("/nothing-here");
        // Then it is a 404 problem
        assertThat(answer.status()).isEqualTo(404);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.json().get("status").asInt()).isEqualTo(404);
    }

    // ---- restart -----------------------------------------------------------------------------

    @Test
    void shouldKeepItsStateWhenRestartedOnTheSameDatabase() {
        // Given stock, a reservation and a tombstone
        String sku = stocked(8);
        UUID order = UUID.randomUUID();
        UUID released = UUID.randomUUID();
        client.reserve(order + ":reserve", order, List.of(line(sku, 3)), TIMEOUT, NO_DEADLINE);
        client.release(released + ":release", released + ":reserve", released, TIMEOUT, NO_DEADLINE);
        // When the service is stopped and started again on the same database
        sandbox.close();
        connect(InventorySandbox.start(dataSource, "127.0.0.1", 0, ACCESS));
        // Then everything is still there, replays included
        assertThat(stock(sku)).isEqualTo(new long[] {5, 3});
        assertThat(client.reserve(order + ":reserve", order, List.of(line(sku, 3)), TIMEOUT, NO_DEADLINE))
                .isEqualTo(Reservation.RESERVED);
        assertThat(client.reserve(released + ":reserve", released, List.of(line(sku, 3)), TIMEOUT, NO_DEADLINE))
                .isEqualTo(Reservation.OUT_OF_STOCK);
        assertThat(stock(sku)).isEqualTo(new long[] {5, 3});
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

    private static String sku() {
        return "SKU-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static String stocked(int available) {
        String sku = sku();
        assertThat(http.put("/stock/" + sku, "{\"available\":" + available + "}").status()).isEqualTo(200);
        return sku;
    }

    /** {available, reserved} of {@code sku}. */
    private static long[] stock(String sku) {
        JsonNode stock = http.get("/stock/" + sku).json();
        return new long[] {stock.get("available").asLong(), stock.get("reserved").asLong()};
    }

    private static OrderLine line(String sku, int quantity) {
        return new OrderLine(sku, quantity, 100);
    }

    private static String reserveBody(UUID order, String sku, int quantity) {
        return "{\"orderId\":\"" + order + "\",\"lines\":[{\"sku\":\"" + sku + "\",\"quantity\":" + quantity + "}]}";
    }
}
