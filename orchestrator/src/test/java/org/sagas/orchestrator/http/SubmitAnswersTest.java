package org.sagas.orchestrator.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.ordering.OrderReason;
import org.sagas.orchestrator.ordering.OrderStatus;
import org.sagas.orchestrator.ordering.SubmitOutcome;
import org.sagas.orchestrator.ordering.SubmitOutcome.KeyConflict.Kind;

/** Each submission outcome as POST /orders answers it (the http openapi.json). */
class SubmitAnswersTest {
    private static final UUID ORDER = UUID.randomUUID();

    @Test
    void shouldAnswerAnAcceptedOrder202WithItsIdAndStatus() {
        SubmitAnswers.Answer answer = SubmitAnswers.of(new SubmitOutcome.Accepted(ORDER, OrderStatus.PENDING_CONFIRMATION));

        assertThat(answer.status()).isEqualTo(202);
        assertThat(answer.accepted()).isTrue();
        assertThat(json(answer).get("orderId").asText()).isEqualTo(ORDER.toString());
        assertThat(json(answer).get("status").asText()).isEqualTo("PENDING_CONFIRMATION");
    }

    @Test
    void shouldAnswerEachRefusalWithItsStatusTypeAndStableCodeNamingTheOrder() {
        assertRefusal(OrderReason.OUT_OF_STOCK, 422, "out-of-stock", "out_of_stock");
        assertRefusal(OrderReason.INVENTORY_UNAVAILABLE, 503, "inventory-unavailable", "inventory_unavailable");
        assertRefusal(OrderReason.ORDER_REFUSED, 422, "order-refused", "order_refused");
        // a reason with no answer of its own is a refused order
        assertRefusal(OrderReason.FRAUD_REFUSED, 422, "order-refused", "fraud_refused");
    }

    @Test
    void shouldAnswerAWithdrawnSubmission503OverloadedNamingNoOrder() {
        SubmitAnswers.Answer answer = SubmitAnswers.of(new SubmitOutcome.Withdrawn("deadline_too_short"));

        assertThat(answer.status()).isEqualTo(503);
        assertThat(answer.type()).isEqualTo("overloaded");
        assertThat(answer.detail()).contains("deadline_too_short", "retry with the same Idempotency-Key");
        assertThat(json(answer).has("orderId")).isFalse();
    }

    @Test
    void shouldAnswerAKeyInProgress409AndAKeyReused422() {
        assertThat(SubmitAnswers.of(new SubmitOutcome.KeyConflict(Kind.IN_PROGRESS)))
                .extracting(SubmitAnswers.Answer::status, SubmitAnswers.Answer::type)
                .containsExactly(409, "idempotency-key");
        assertThat(SubmitAnswers.of(new SubmitOutcome.KeyConflict(Kind.REUSED)))
                .extracting(SubmitAnswers.Answer::status, SubmitAnswers.Answer::type)
                .containsExactly(422, "idempotency-key");
    }

    @Test
    void shouldReplayAnAnswerStoredBeforeV11AsItWasStoredWithItsTypeReadBack() {
        String body = Problems.body(422, "out-of-stock", "Out of stock", "not enough stock", java.util.Map.of());

        SubmitAnswers.Answer answer = SubmitAnswers.of(new SubmitOutcome.Stored(ORDER, 422, body));

        assertThat(answer.body()).isEqualTo(body);
        assertThat(answer.type()).isEqualTo("out-of-stock");
        assertThat(answer.detail()).isEqualTo("not enough stock");
    }

    private static void assertRefusal(OrderReason reason, int status, String type, String code) {
        SubmitAnswers.Answer answer = SubmitAnswers.of(new SubmitOutcome.Refused(ORDER, reason));
        assertThat(answer.status()).as(reason.name()).isEqualTo(status);
        assertThat(answer.type()).isEqualTo(type);
        JsonNode body = json(answer);
        assertThat(body.get("type").asText()).isEqualTo("/problems/" + type);
        assertThat(body.get("status").asInt()).isEqualTo(status);
        assertThat(body.get("code").asText()).isEqualTo(code);
        assertThat(body.get("orderId").asText()).isEqualTo(ORDER.toString());
    }

    private static JsonNode json(SubmitAnswers.Answer answer) {
        return Json.read(answer.body(), JsonNode.class);
    }
}
