package org.sagas.orchestrator.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.http.OrderCommands;
import org.sagas.orchestrator.messaging.MessageContracts.Contract;
import org.sagas.orchestrator.messaging.MessageContracts.Valid;
import org.sagas.orchestrator.messaging.MessageContracts.Violation;
import org.sagas.orchestrator.ordering.Limits;
import org.sagas.orchestrator.ordering.OrderMessages;
import org.sagas.orchestrator.ordering.OrderStatus;

/**
 * The product's message contracts load, state what the code applies, and hold its own messages:
 * each schema's examples keep it, unknown fields are welcome, and the values the shared rules
 * ({@link Limits}) allow are exactly those the schemas allow.
 */
class MessageContractsTest {
    private final MessageContracts contracts = MessageContracts.standard();

    @Test
    void shouldListASchemaForEveryTopicOfTheProductButTheDeadLetterTwins() {
        List<String> topics = contracts.all().stream().map(Contract::topic).distinct().toList();
        List<String> product = Topics.all().stream().filter(t -> !Topics.isDeadLetter(t)).toList();
        assertThat(topics).containsAll(product).contains(MessageContracts.DEAD_LETTER);
    }

    @Test
    void shouldAcceptEveryExampleOfEverySchema() {
        for (Contract c : contracts.all()) {
            JsonNode examples = Json.read(contracts.text(c), JsonNode.class).path("examples");
            assertThat(examples.size()).as(c.path() + " has examples").isPositive();
            for (JsonNode example : examples) {
                assertThat(contracts.check(c, Json.write(example))).as(c.path() + ": " + example)
                        .isInstanceOf(Valid.class);
            }
        }
    }

    @Test
    void shouldNeverForbidUnknownFieldsWhenASchemaIsWritten() {
        for (Contract c : contracts.all()) {
            assertThat(forbidsUnknown(Json.read(contracts.text(c), JsonNode.class))).as(c.path()).isEmpty();
        }
        assertThat(forbidsUnknown(Json.read(contracts.file("common.v1.schema.json").orElseThrow(), JsonNode.class)))
                .isEmpty();
    }

    @Test
    void shouldAcceptAMessageWithFieldsItDoesNotKnowWhenTheRestKeepsTheSchema() {
        ObjectNode order = example("orders.commands", "PlaceOrder");
        order.put("giftWrap", true);
        ((ObjectNode) order.get("lines").get(0)).put("colour", "blue");

        assertThat(check("orders.commands", "PlaceOrder", order)).isInstanceOf(Valid.class);
    }

    @Test
    void shouldNameEachViolationWhenAMessageBreaksItsSchema() {
        ObjectNode order = example("orders.commands", "PlaceOrder");
        ((ObjectNode) order.get("lines").get(0)).put("quantity", 0);
        order.put("currency", "euro");
        order.remove("idempotencyKey");

        MessageContracts.Verdict verdict = check("orders.commands", "PlaceOrder", order);

        assertThat(verdict).isInstanceOf(Violation.class);
        Violation v = (Violation) verdict;
        assertThat(v.errors()).hasSize(3);
        assertThat(v.reason()).startsWith("PlaceOrder.v1: ").contains("quantity", "currency", "idempotencyKey");
    }

    @Test
    void shouldRefuseABodyThatIsNotJsonAsUnreadableNotAsAViolation() {
        assertThat(contracts.check("orders.commands", "PlaceOrder", "{not json".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(MessageContracts.Unreadable.class);
        assertThat(contracts.check("orders.commands", "NoSuchType", "{}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(MessageContracts.NoContract.class);
    }

    @Test
    void shouldAllowTheIdentifiersLimitsAllowsAndNoOthers() {
        List<String> samples = List.of("c-1", "SKU-1", "Ünïcødé", "顧客42", "a_b.c:d@e/f#g+h", "x".repeat(64),
                "x".repeat(65), "", " ", "a b", "a\u0000b", "a\u200db", "e\u0301", "emoji\uD83D\uDE00", "tab\t",
                "١٢٣", "semi;colon", "quote\"");
        for (String id : samples) {
            ObjectNode notice = example("notifications", "CustomerNotice");
            notice.put("customerId", id);
            boolean schemaAllows = check("notifications", "CustomerNotice", notice) instanceof Valid;
            assertThat(schemaAllows).as("identifier '" + id + "'")
                    .isEqualTo(Limits.identifierProblem(id, Limits.MAX_CUSTOMER_ID).isEmpty());
        }
    }

    @Test
    void shouldStateTheLimitsOfTheSharedRules() {
        JsonNode defs = Json.read(contracts.file("common.v1.schema.json").orElseThrow(), JsonNode.class).path("$defs");
        assertThat(defs.at("/identifier/maxLength").asInt()).isEqualTo(Limits.MAX_SKU).isEqualTo(Limits.MAX_CUSTOMER_ID);
        assertThat(defs.at("/key/maxLength").asInt()).isEqualTo(Limits.MAX_KEY);
        assertThat(defs.at("/quantity/maximum").asInt()).isEqualTo(Limits.MAX_QUANTITY);
        assertThat(defs.at("/unitPriceCents/maximum").asLong()).isEqualTo(Limits.MAX_UNIT_PRICE_CENTS);
        List<String> statuses = new ArrayList<>();
        defs.at("/orderStatus/enum").forEach(s -> statuses.add(s.asText()));
        assertThat(statuses).containsExactly(java.util.Arrays.stream(OrderStatus.values()).map(Enum::name)
                .toArray(String[]::new));
        JsonNode place = Json.read(contracts.text(contracts.latest("orders.commands", "PlaceOrder").orElseThrow()),
                JsonNode.class);
        assertThat(place.at("/properties/lines/maxItems").asInt()).isEqualTo(Limits.MAX_LINES);
    }

    @Test
    void shouldHoldTheMessagesTheProductWritesToTheirSchemas() {
        UUID order = UUID.randomUUID();
        valid(Topics.ORDERS_EVENTS, OrderMessages.ORDER_STATUS_CHANGED, new OrderMessages.OrderStatusChanged(order,
                "c-1", OrderStatus.AWAITING_PAYMENT.name(), "stock_reserved", 2500, "EUR", 2, Instant.now()));
        valid(Topics.PAYMENTS_COMMANDS, OrderMessages.CHARGE_PAYMENT, new OrderMessages.ChargePayment(order, "c-1",
                2500, "EUR", order + ":charge"));
        valid(Topics.PAYMENTS_COMMANDS, OrderMessages.REFUND_PAYMENT, new OrderMessages.RefundPayment(order,
                order + ":charge", order + ":refund"));
        valid(Topics.PAYMENTS_EVENTS, OrderMessages.PAYMENT_CAPTURED, new OrderMessages.PaymentCaptured(order,
                order + ":charge"));
        valid(Topics.PAYMENTS_EVENTS, OrderMessages.PAYMENT_DECLINED, new OrderMessages.PaymentDeclined(order,
                order + ":charge", "declined", "payment_declined"));
        valid(Topics.NOTIFICATIONS, OrderMessages.CUSTOMER_NOTIFIED, new OrderMessages.CustomerNotice(order, "c-1",
                "CONFIRMED", "Your order is confirmed."));
        valid(Topics.ORDERS_EVENTS, "OrderCommandAccepted", new OrderCommands.Accepted("ref-1",
                OrderCommands.PLACE_ORDER, order, "AWAITING_PAYMENT", false));
        valid(Topics.ORDERS_EVENTS, "OrderCommandRefused", new OrderCommands.Refused("ref-1",
                OrderCommands.CANCEL_ORDER, null, "not-found", 404, "no order " + order));
    }

    private void valid(String topic, String type, Object payload) {
        MessageContracts.Verdict verdict = contracts.check(topic, type, Json.write(payload).getBytes(StandardCharsets.UTF_8));
        assertThat(verdict).as(type + " " + Json.write(payload)).isInstanceOf(Valid.class);
    }

    private ObjectNode example(String topic, String type) {
        Contract c = contracts.latest(topic, type).orElseThrow();
        return (ObjectNode) Json.read(contracts.text(c), JsonNode.class).path("examples").get(0).deepCopy();
    }

    private MessageContracts.Verdict check(String topic, String type, JsonNode body) {
        return contracts.check(topic, type, Json.write(body).getBytes(StandardCharsets.UTF_8));
    }

    /** The JSON pointers in {@code schema} where {@code additionalProperties} is {@code false}. */
    private static List<String> forbidsUnknown(JsonNode schema) {
        List<String> found = new ArrayList<>();
        walk(schema, "", found);
        return found;
    }

    private static void walk(JsonNode node, String at, List<String> found) {
        if (node.isObject()) {
            JsonNode ap = node.get("additionalProperties");
            if (ap != null && ap.isBoolean() && !ap.asBoolean()) {
                found.add(at);
            }
            node.fields().forEachRemaining(e -> walk(e.getValue(), at + "/" + e.getKey(), found));
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                walk(node.get(i), at + "/" + i, found);
            }
        }
    }
}
