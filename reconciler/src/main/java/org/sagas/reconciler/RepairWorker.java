package org.sagas.reconciler;

import org.sagas.orchestrator.messaging.KafkaConnection;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.sagas.adapters.http.ParticipantError;
import org.sagas.adapters.messaging.ConsumerLoop;
import org.sagas.adapters.messaging.ParsedMessage;
import org.sagas.adapters.messaging.PoisonMessage;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.orchestrator.ordering.InventoryPort;
import org.sagas.orchestrator.ordering.PaymentProvider;
import org.sagas.orchestrator.saga.IncomingMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out the reconciler's repairs from {@code reconciliation.repairs}: refunds a charge or
 * releases a reservation, each under the repair's idempotency key, so a command delivered twice
 * (the relay and this consumer deliver at least once) has one effect at the participant. A
 * participant that fails is tried again after a back-off (the consumer loop keeps the record); one
 * that refuses for good (e.g. 404, no such charge) sends the command to the dead-letter topic with
 * its answer. The effect is seen later in the participant's ledger feed, which resolves the
 * finding. Thread-safe.
 */
public final class RepairWorker implements AutoCloseable {
    public static final String CONSUMER = "reconciliation-repairs";
    private static final Logger log = LoggerFactory.getLogger(RepairWorker.class);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

    private final PaymentProvider payments;
    private final InventoryPort inventory;
    private final MeterRegistry registry;
    private final ConsumerLoop loop;

    /**
     * @param givenUp told (order id, why) when a repair kept failing and was dead-lettered, so it
     *     does not end in silence (the product raises an incident on the order)
     */
    public RepairWorker(PaymentProvider payments, InventoryPort inventory, KafkaConnection kafka,
            MeterRegistry registry, BiConsumer<String, String> givenUp) {
        this.payments = payments;
        this.inventory = inventory;
        this.registry = registry;
        this.loop = new ConsumerLoop(kafka, CONSUMER, Topics.RECONCILIATION_REPAIRS, this::handle,
                ConsumerLoop.BatchGate.NONE, registry, ConsumerLoop.DEFAULT_RETRY_FOR,
                (record, reason, cause) -> givenUp.accept(record.key(), "repair " + record.topic() + "/"
                        + record.partition() + "@" + record.offset() + " dead-lettered: " + reason));
    }

    public RepairWorker start() {
        loop.start();
        return this;
    }

    List<ConsumerLoop.Rejected> handle(List<ConsumerRecord<String, byte[]>> records) {
        List<ConsumerLoop.Rejected> rejected = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> record : records) {
            try {
                IncomingMessage m = ParsedMessage.parse(record);
                RepairCommand command = read(m);
                repair(m.type(), command);
            } catch (PoisonMessage e) {
                rejected.add(new ConsumerLoop.Rejected(record, e.getMessage()));
            } catch (ParticipantError e) {
                if (e.status() >= 500 || e.status() == 408 || e.status() == 429) {
                    throw e;
                }
                rejected.add(new ConsumerLoop.Rejected(record, "the participant refused the repair: " + e.getMessage()));
            }
        }
        return rejected;
    }

    private void repair(String type, RepairCommand c) {
        switch (type) {
            case RepairCommand.REFUND_CHARGE:
                PaymentProvider.Charge after = payments.refund(c.repairKey(), c.subject(), CALL_TIMEOUT);
                log.info("reconciler refunded charge {} of order {} under key {}: now {}", c.subject(), c.orderId(),
                        c.repairKey(), after);
                break;
            case RepairCommand.RELEASE_RESERVATION:
                inventory.release(c.repairKey(), c.subject(), orderUuid(c.orderId()), CALL_TIMEOUT,
                        System.currentTimeMillis() + CALL_TIMEOUT.toMillis());
                log.info("reconciler released reservation {} of order {} under key {}", c.subject(), c.orderId(),
                        c.repairKey());
                break;
            default:
                throw new PoisonMessage("unexpected message type " + type + " on " + Topics.RECONCILIATION_REPAIRS);
        }
        Counter.builder("saga.reconciliation.repairs").tag("type", type)
                .description("Repairs carried out at a participant (idempotent by key)").register(registry).increment();
    }

    /** The release carries an order id only for a tombstone; an id that is no UUID gets a stable stand-in. */
    private static UUID orderUuid(String orderId) {
        try {
            return UUID.fromString(orderId);
        } catch (IllegalArgumentException e) {
            return UUID.nameUUIDFromBytes(orderId.getBytes(StandardCharsets.UTF_8));
        }
    }

    private static RepairCommand read(IncomingMessage m) {
        try {
            RepairCommand c = Json.mapper().treeToValue(m.payload(), RepairCommand.class);
            if (c.subject() == null || c.repairKey() == null || c.orderId() == null) {
                throw new PoisonMessage("repair without orderId, subject or repairKey");
            }
            return c;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new PoisonMessage("not a repair command: " + e.getOriginalMessage());
        }
    }

    @Override
    public void close() {
        loop.close();
    }
}
