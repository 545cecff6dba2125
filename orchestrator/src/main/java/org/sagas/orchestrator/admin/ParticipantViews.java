package org.sagas.orchestrator.admin;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.UUID;

/**
 * What the participants hold for an order, read from them live: the inventory's reservations and
 * the payment provider's charges, as they answer them (JSON arrays). Implementations do not retry.
 */
public interface ParticipantViews {

    /** @throws RuntimeException when the inventory did not answer within {@code timeout} */
    JsonNode reservations(UUID orderId, Duration timeout);

    /** @throws RuntimeException when the provider did not answer within {@code timeout} */
    JsonNode charges(UUID orderId, Duration timeout);
}
