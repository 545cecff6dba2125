package org.sagas.orchestrator.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.ordering.CancelOutcome;
import org.sagas.orchestrator.ordering.Limits;
import org.sagas.orchestrator.ordering.OrderRequest;
import org.sagas.orchestrator.ordering.OrderService;
import org.sagas.orchestrator.ordering.SubmitOutcome;
import org.sagas.orchestrator.ordering.SubmitResult;
import org.sagas.orchestrator.resilience.Priority;

/**
 * Orders placed and cancelled through Kafka ({@code orders.commands}, docs/events.md), taken through
 * what {@code POST /orders} and {@code POST /orders/{id}/cancel} take them through: the same
 * parsing and validation, Idempotency-Key rules, admission and {@link OrderService}. The client is
 * the order's customer, as on an open API: who may write the topic is Kafka's ACLs' business
 * (docs/security.md). The transport — reading the topic, publishing the outcome — is the caller's.
 * Thread-safe.
 */
public final class OrderCommands {
    public static final String PLACE_ORDER = "PlaceOrder";
    public static final String CANCEL_ORDER = "CancelOrder";

    /** What became of a command; {@code command} is its message type. */
    public sealed interface Outcome permits Accepted, Refused, Held {
        String clientReference();
    }

    /**
     * Not taken now, nothing stored: admission refused it for the moment (overload, pending caps), as
     * the API would with a {@code 503} or {@code 429} and {@code Retry-After}. A queue exists to hold
     * such orders, so the consumer waits and offers it again rather than publishing a refusal.
     */
    public record Held(String clientReference, String command, String type, int retryAfterSeconds, String detail)
            implements Outcome {}

    /**
     * The order was placed (or cancelled): {@code status} is the order's status in the answer the API
     * would give; {@code replayed} when its Idempotency-Key had answered before.
     */
    public record Accepted(String clientReference, String command, UUID orderId, String status, boolean replayed)
            implements Outcome {}

    /**
     * Refused as the API refuses it: {@code type} is the problem's slug (e.g. {@code out-of-stock}),
     * {@code httpStatus} what the API answers; {@code orderId} when an order was stored (a REJECTED one).
     */
    public record Refused(String clientReference, String command, UUID orderId, String type, int httpStatus,
            String detail) implements Outcome {}

    private final OrderService orders;
    private final ApiServer.Admission admission;
    private final Clock clock;
    private final long budgetMillis;

    /** @param budgetMillis each command's deadline from when it is taken, as a request's budget */
    public OrderCommands(OrderService orders, ApiServer.Admission admission, Clock clock, long budgetMillis) {
        this.orders = orders;
        this.admission = admission;
        this.clock = clock;
        this.budgetMillis = budgetMillis;
    }

    /**
     * Carries out the command of message type {@code type} with {@code body}.
     *
     * @throws InvalidRequest when the command does not parse or validate: nothing was done
     */
    public Outcome handle(String type, JsonNode body) {
        switch (type) {
            case PLACE_ORDER:
                return place(body);
            case CANCEL_ORDER:
                return cancel(body);
            default:
                throw new InvalidRequest("message-type", "must be " + PLACE_ORDER + " or " + CANCEL_ORDER);
        }
    }

    private Outcome place(JsonNode body) {
        String reference = reference(body.get("clientReference"));
        String key = key(body.get("idempotencyKey"));
        ObjectNode order = orderFields(body);
        OrderRequest request = OrderRequestParser.parse(Json.write(order).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        String client = OrderService.customerClient(request.customerId());
        long deadline = clock.millis() + budgetMillis;
        ApiServer.Admission.Decision decision = admission.decide(new ApiServer.Admission.Request(client,
                Set.of(request.customerId()), Priority.NORMAL, deadline, System.nanoTime(), OptionalInt.empty()));
        if (decision instanceof ApiServer.Admission.Refused refused) {
            return new Held(reference, PLACE_ORDER, refused.type(), refused.retryAfterSeconds(), refused.detail());
        }
        SubmitResult result;
        try (ApiServer.Admission.Ticket ticket = ((ApiServer.Admission.Admitted) decision).ticket()) {
            result = orders.submit(client, key, request, deadline);
        }
        if (result.outcome() instanceof SubmitOutcome.Withdrawn) {
            // Withdrawn before its reservation was sent (the product's own want of capacity): nothing kept.
            return new Held(reference, PLACE_ORDER, "overloaded", 1, "withdrawn before its reservation was sent");
        }
        if (result.outcome() instanceof SubmitOutcome.Accepted accepted) {
            return new Accepted(reference, PLACE_ORDER, accepted.orderId(), accepted.status().name(),
                    result.replayed());
        }
        // The API's own answer: its status and problem type are the contract (/problems/<slug>).
        SubmitAnswers.Answer answer = SubmitAnswers.of(result.outcome());
        if (answer.accepted()) { // an answer stored before V11
            return new Accepted(reference, PLACE_ORDER, result.orderId(),
                    Json.read(answer.body(), JsonNode.class).path("status").asText(), result.replayed());
        }
        return new Refused(reference, PLACE_ORDER, result.orderId(), answer.type(), answer.status(), answer.detail());
    }

    private Outcome cancel(JsonNode body) {
        String reference = reference(body.get("clientReference"));
        String key = key(body.get("idempotencyKey"));
        UUID orderId;
        try {
            orderId = UUID.fromString(textOrNull(body.get("orderId")));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new InvalidRequest("orderId", "must be an order id (UUID)");
        }
        String customer = textOrNull(body.get("customerId"));
        if (customer == null || customer.isBlank()) {
            throw new InvalidRequest("customerId", "is required: the customer whose order it is");
        }
        CancelOutcome outcome = orders.cancel(new OrderService.Caller(null, Set.of(customer)), key, orderId,
                clock.millis() + budgetMillis);
        if (outcome instanceof CancelOutcome.Undoing undoing) {
            return new Accepted(reference, CANCEL_ORDER, orderId, undoing.status().name(), undoing.replayed());
        } else if (outcome instanceof CancelOutcome.Ended ended) {
            return new Accepted(reference, CANCEL_ORDER, orderId, ended.status().name(), ended.replayed());
        }
        CancelRefusals.Problem problem = CancelRefusals.of(outcome);
        return new Refused(reference, CANCEL_ORDER, orderId, problem.type(), problem.status(), problem.detail());
    }

    /**
     * The fields of {@code POST /orders}'s body in the command, the rest left out: a command may carry
     * fields this build does not know (its contract allows them, docs/decisions/0026), which the API's
     * strict parser would refuse as unknown.
     */
    private static ObjectNode orderFields(JsonNode body) {
        ObjectNode order = Json.mapper().createObjectNode();
        for (String field : List.of("customerId", "currency", "lines")) {
            if (body.has(field)) {
                order.set(field, body.get(field).deepCopy());
            }
        }
        if (order.get("lines") instanceof com.fasterxml.jackson.databind.node.ArrayNode lines) {
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i) instanceof ObjectNode line) {
                    line.retain("sku", "quantity", "unitPriceCents");
                }
            }
        }
        return order;
    }

    /** The client's reference for its order: required, visible ASCII like a key, echoed in the outcome. */
    private static String reference(JsonNode node) {
        String reference = textOrNull(node);
        if (reference == null || reference.isEmpty() || reference.length() > Limits.MAX_KEY
                || !reference.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw new InvalidRequest("clientReference", "is required: visible ASCII, at most " + Limits.MAX_KEY
                    + " characters");
        }
        return reference;
    }

    /** The API's Idempotency-Key rules, named as the command's field. */
    private static String key(JsonNode node) {
        try {
            return ApiServer.Routes.idempotencyKey(textOrNull(node));
        } catch (InvalidRequest e) {
            throw new InvalidRequest("idempotencyKey", "is required: visible ASCII, no spaces, at most "
                    + Limits.MAX_KEY + " characters");
        }
    }

    private static String textOrNull(JsonNode node) {
        return node == null || !node.isTextual() ? null : node.asText();
    }
}
