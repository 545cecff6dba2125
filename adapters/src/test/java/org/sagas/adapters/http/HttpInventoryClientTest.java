package org.sagas.adapters.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sagas.orchestrator.ordering.OrderLine;
import org.sagas.orchestrator.ordering.InventoryPort.Reservation;
import org.sagas.orchestrator.resilience.TimedOutFailure;
import org.sagas.orchestrator.resilience.TransientFailure;

class HttpInventoryClientTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final UUID ORDER = UUID.fromString("00000000-0000-0000-0000-000000000042");
    private static final List<OrderLine> LINES = List.of(new OrderLine("SKU-1", 2, 1250), new OrderLine("SKU-2", 1, 99));

    private final StubParticipant inventory = new StubParticipant();
    private final HttpInventoryClient client = new HttpInventoryClient(inventory.uri());

    @AfterEach
    void stop() {
        inventory.close();
    }

    @Test
    void shouldSendTheKeyTheDeadlineAndTheLinesWhenReserving() throws IOException {
        // Given an inventory that reserves
        inventory.answering(200, "{\"status\":\"RESERVED\"}");
        // When an order reserves with a deadline
        Reservation answer = client.reserve(ORDER + ":reserve", ORDER, LINES, TIMEOUT, 1_900_000_000_000L);
        // Then the answer is RESERVED, and the request carried key, deadline and lines
        assertThat(answer).isEqualTo(Reservation.RESERVED);
        StubParticipant.Recorded request = inventory.requests().get(0);
        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.rawPath()).isEqualTo("/reservations");
        assertThat(request.idempotencyKey()).isEqualTo(ORDER + ":reserve");
        assertThat(request.deadline()).isEqualTo("1900000000000");
        JsonNode body = new ObjectMapper().readTree(request.body());
        assertThat(body.get("orderId").asText()).isEqualTo(ORDER.toString());
        assertThat(body.get("lines").get(0).get("sku").asText()).isEqualTo("SKU-1");
        assertThat(body.get("lines").get(0).get("quantity").asInt()).isEqualTo(2);
        assertThat(body.get("lines")).hasSize(2);
    }

    @Test
    void shouldOmitTheDeadlineWhenThereIsNone() {
        // Given an inventory that reserves
        inventory.answering(200, "{\"status\":\"RESERVED\"}");
        // When reserving without a deadline (0 or Long.MAX_VALUE)
        client.reserve("k1", ORDER, LINES, TIMEOUT, 0);
        client.reserve("k2", ORDER, LINES, TIMEOUT, Long.MAX_VALUE);
        // Then no X-Deadline header is sent
        assertThat(inventory.requests()).extracting(StubParticipant.Recorded::deadline).containsOnlyNulls();
    }

    @Test
    void shouldReadOutOfStockAndReleasedAsOutOfStock() {
        // Given an inventory that says the key holds nothing
        // When reserving
        // Then the saga is told OUT_OF_STOCK either way
        inventory.answering(200, "{\"status\":\"OUT_OF_STOCK\"}");
        assertThat(client.reserve("k1", ORDER, LINES, TIMEOUT, 0)).isEqualTo(Reservation.OUT_OF_STOCK);
        inventory.answering(200, "{\"key\":\"k2\",\"status\":\"RELEASED\",\"lines\":[]}");
        assertThat(client.reserve("k2", ORDER, LINES, TIMEOUT, 0)).isEqualTo(Reservation.OUT_OF_STOCK);
    }

    @Test
    void shouldEncodeTheReservationKeyInTheReleasePath() {
        // Given an inventory that releases
        inventory.answering(200, "{\"status\":\"RELEASED\"}");
        // When a key with reserved characters is released
        client.release(ORDER + ":release", "a b/c:reserve", ORDER, TIMEOUT, 1_900_000_000_000L);
        // Then it travels as one path segment, with the release's own key
        StubParticipant.Recorded request = inventory.requests().get(0);
        assertThat(request.rawPath()).isEqualTo("/reservations/a%20b%2Fc%3Areserve/release");
        assertThat(request.idempotencyKey()).isEqualTo(ORDER + ":release");
        assertThat(request.deadline()).isEqualTo("1900000000000");
        assertThat(request.body()).contains(ORDER.toString());
    }

    @ParameterizedTest
    @ValueSource(ints = {500, 502, 503, 504, 429, 408, 409, 425})
    void shouldFailTransientlyWhenTheServiceFails(int status) {
        // Given an inventory answering a failure status
        inventory.answering(status, "{\"title\":\"failed\"}");
        // When reserving and releasing
        // Then both fail transiently, naming the status
        assertThatThrownBy(() -> client.reserve("k", ORDER, LINES, TIMEOUT, 0))
                .isInstanceOf(TransientFailure.class).hasMessageContaining(Integer.toString(status));
        assertThatThrownBy(() -> client.release("r", "k", ORDER, TIMEOUT, 0))
                .isInstanceOf(TransientFailure.class).hasMessageContaining(Integer.toString(status));
    }

    @ParameterizedTest
    @ValueSource(ints = {503, 429, 408, 425})
    void shouldSayNothingHappenedWhenTheServiceDidNotGetToTheRequest(int status) {
        inventory.answering(status, "{}");
        assertThatThrownBy(() -> client.reserve("k", ORDER, LINES, TIMEOUT, 0))
                .isInstanceOfSatisfying(TransientFailure.class, e -> assertThat(e.mayHaveTakenEffect()).isFalse());
    }

    @ParameterizedTest
    @ValueSource(ints = {500, 502, 504, 409})
    void shouldCallTheOutcomeUnknownWhenTheServiceMayHaveActed(int status) {
        inventory.answering(status, "{}");
        assertThatThrownBy(() -> client.reserve("k", ORDER, LINES, TIMEOUT, 0))
                .isInstanceOfSatisfying(TransientFailure.class, e -> assertThat(e.mayHaveTakenEffect()).isTrue());
    }

    @Test
    void shouldReadADeadlineItWouldNotMeetAsATimeoutWithoutEffect() {
        // Given an inventory that answers it did not start: the deadline it was sent would pass first
        inventory.answering(504, "{\"type\":\"/problems/deadline-exceeded\",\"status\":504}");
        // When reserving
        // Then the attempt timed out and certainly did nothing, for the stack to judge by its time
        assertThatThrownBy(() -> client.reserve("k", ORDER, LINES, TIMEOUT, 0))
                .isInstanceOfSatisfying(TimedOutFailure.class, e -> assertThat(e.mayHaveTakenEffect()).isFalse());
    }

    @Test
    void shouldKeepAnyOther504Unknown() {
        // Given an inventory whose 504 names another problem (an answer lost on its way)
        inventory.answering(504, "{\"type\":\"/problems/answer-lost\",\"status\":504}");
        // When reserving
        // Then the outcome is unknown, and not a timeout
        assertThatThrownBy(() -> client.reserve("k", ORDER, LINES, TIMEOUT, 0))
                .isInstanceOfSatisfying(TransientFailure.class, e -> {
                    assertThat(e).isNotInstanceOf(TimedOutFailure.class);
                    assertThat(e.mayHaveTakenEffect()).isTrue();
                });
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 401, 403, 404, 410, 413, 422, 302})
    void shouldRejectWithAParticipantErrorOnOtherClientErrors(int status) {
        // Given an inventory that rejects the request
        inventory.answering(status, "{\"detail\":\"no\"}");
        // When reserving
        // Then the error is final, with status and body
        assertThatThrownBy(() -> client.reserve("k", ORDER, LINES, TIMEOUT, 0))
                .isInstanceOfSatisfying(ParticipantError.class, e -> {
                    assertThat(e.status()).isEqualTo(status);
                    assertThat(e.body()).isEqualTo("{\"detail\":\"no\"}");
                });
    }

    @Test
    void shouldFailTransientlyWhenTheAnswerCannotBeRead() {
        // Given answers that say nothing the client understands
        // When reserving
        // Then the outcome is unknown: a transient failure
        inventory.answering(200, "<html>hello</html>");
        assertThatThrownBy(() -> client.reserve("k", ORDER, LINES, TIMEOUT, 0)).isInstanceOf(TransientFailure.class);
        inventory.answering(200, "{\"status\":\"MAYBE\"}");
        assertThatThrownBy(() -> client.reserve("k", ORDER, LINES, TIMEOUT, 0))
                .isInstanceOf(TransientFailure.class).hasMessageContaining("MAYBE");
        inventory.answering(200, "{}");
        assertThatThrownBy(() -> client.reserve("k", ORDER, LINES, TIMEOUT, 0)).isInstanceOf(TransientFailure.class);
    }

    @Test
    void shouldFailTransientlyWhenTheTimeoutPasses() {
        // Given an inventory that never answers
        inventory.holding();
        long started = System.nanoTime();
        // When reserving with 200 ms to spare
        // Then it fails transiently after about that long
        assertThatThrownBy(() -> client.reserve("k", ORDER, LINES, Duration.ofMillis(200), 0))
                .isInstanceOf(TransientFailure.class).hasMessageContaining("timed out");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
    }

    @Test
    void shouldFailTransientlyWhenTheConnectionIsRefused() throws IOException {
        // Given a port nobody listens on
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        HttpInventoryClient nowhere = new HttpInventoryClient(URI.create("http://127.0.0.1:" + port));
        // When reserving
        // Then it fails transiently, certainly without effect
        assertThatThrownBy(() -> nowhere.reserve("k", ORDER, LINES, TIMEOUT, 0))
                .isInstanceOfSatisfying(TransientFailure.class, e -> assertThat(e.mayHaveTakenEffect()).isFalse());
    }

    @Test
    void shouldFailTransientlyWithoutCallingWhenNoTimeIsLeft() {
        // When reserving with no time left
        // Then it fails transiently and nothing is sent
        assertThatThrownBy(() -> client.reserve("k", ORDER, LINES, Duration.ZERO, 0))
                .isInstanceOf(TransientFailure.class).hasMessageContaining("no time left");
        assertThat(inventory.requests()).isEmpty();
    }

    @Test
    void shouldRestoreTheInterruptFlagWhenInterrupted() {
        // Given an interrupted caller
        inventory.answering(200, "{\"status\":\"RESERVED\"}");
        Thread.currentThread().interrupt();
        try {
            // When it reserves
            // Then it fails transiently and is still interrupted
            assertThatThrownBy(() -> client.reserve("k", ORDER, LINES, TIMEOUT, 0))
                    .isInstanceOf(TransientFailure.class).hasMessageContaining("interrupted");
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }
}
