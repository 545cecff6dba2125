package org.sagas.adapters.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.ordering.PaymentProvider.Charge;
import org.sagas.orchestrator.resilience.TransientFailure;

class HttpPaymentClientTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final UUID ORDER = UUID.fromString("00000000-0000-0000-0000-000000000007");

    private final StubParticipant provider = new StubParticipant();
    private final HttpPaymentClient client = new HttpPaymentClient(provider.uri());

    @AfterEach
    void stop() {
        provider.close();
    }

    @Test
    void shouldSendTheKeyAndTheAmountWhenCharging() throws IOException {
        // Given a provider that captures
        provider.answering(200, "{\"idempotencyKey\":\"k\",\"status\":\"CAPTURED\"}");
        // When an order is charged
        Charge answer = client.charge(ORDER + ":charge", ORDER, 2_500, "EUR", TIMEOUT);
        // Then it is captured, and the request carried key and amount, and no deadline
        assertThat(answer).isEqualTo(Charge.CAPTURED);
        StubParticipant.Recorded request = provider.requests().get(0);
        assertThat(request.rawPath()).isEqualTo("/charges");
        assertThat(request.idempotencyKey()).isEqualTo(ORDER + ":charge");
        assertThat(request.deadline()).isNull();
        JsonNode body = new ObjectMapper().readTree(request.body());
        assertThat(body.get("orderId").asText()).isEqualTo(ORDER.toString());
        assertThat(body.get("amountCents").asLong()).isEqualTo(2_500);
        assertThat(body.get("currency").asText()).isEqualTo("EUR");
    }

    @Test
    void shouldReadADecline() {
        // Given a provider that declines
        provider.answering(200, "{\"status\":\"DECLINED\"}");
        // When charging, Then the decline is an answer
        assertThat(client.charge("k", ORDER, 100, "EUR", TIMEOUT)).isEqualTo(Charge.DECLINED);
    }

    @Test
    void shouldFindNothingWhenTheLookUpIsNotFound() {
        // Given a provider that never saw the key
        provider.answering(404, "{\"status\":404}");
        // When looking it up
        // Then nothing is found, and the key travelled as one path segment
        assertThat(client.lookup(ORDER + ":charge", TIMEOUT)).isEmpty();
        assertThat(provider.requests().get(0).method()).isEqualTo("GET");
        assertThat(provider.requests().get(0).rawPath()).isEqualTo("/charges/" + ORDER + "%3Acharge");
    }

    @Test
    void shouldFindWhatTheProviderRecorded() {
        // Given a provider that has a refunded charge
        provider.answering(200, "{\"status\":\"REFUNDED\"}");
        // When looking it up, Then it is found
        assertThat(client.lookup("k", TIMEOUT)).contains(Charge.REFUNDED);
    }

    @Test
    void shouldSendTheChargeKeyWithTheRefundsOwnKey() {
        // Given a provider that refunds
        provider.answering(200, "{\"status\":\"REFUNDED\"}");
        // When a charge is refunded
        Charge answer = client.refund(ORDER + ":refund", ORDER + ":charge", TIMEOUT);
        // Then the request names the charge, under the refund's key
        assertThat(answer).isEqualTo(Charge.REFUNDED);
        StubParticipant.Recorded request = provider.requests().get(0);
        assertThat(request.rawPath()).isEqualTo("/refunds");
        assertThat(request.idempotencyKey()).isEqualTo(ORDER + ":refund");
        assertThat(request.body()).contains("\"chargeKey\":\"" + ORDER + ":charge\"");
    }

    @Test
    void shouldRejectARefundOfAnUnknownCharge() {
        // Given a provider without that charge
        provider.answering(404, "{\"status\":404}");
        // When refunding, Then the rejection is final
        assertThatThrownBy(() -> client.refund("r", "c", TIMEOUT))
                .isInstanceOfSatisfying(ParticipantError.class, e -> assertThat(e.status()).isEqualTo(404));
    }

    @Test
    void shouldFailTransientlyWhenTheProviderFails() {
        // Given a provider answering 503
        provider.answering(503, "{\"status\":503}");
        // When charging, looking up and refunding, Then each fails transiently
        assertThatThrownBy(() -> client.charge("k", ORDER, 100, "EUR", TIMEOUT)).isInstanceOf(TransientFailure.class);
        assertThatThrownBy(() -> client.lookup("k", TIMEOUT)).isInstanceOf(TransientFailure.class);
        assertThatThrownBy(() -> client.refund("r", "k", TIMEOUT)).isInstanceOf(TransientFailure.class);
    }

    @Test
    void shouldFailTransientlyWhenTheAnswerIsLost() {
        // Given a provider that never answers
        provider.holding();
        // When charging with 200 ms to spare
        // Then the outcome is unknown: a transient failure
        assertThatThrownBy(() -> client.charge("k", ORDER, 100, "EUR", Duration.ofMillis(200)))
                .isInstanceOf(TransientFailure.class).hasMessageContaining("timed out");
    }
}
