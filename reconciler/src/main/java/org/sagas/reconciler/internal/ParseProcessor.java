package org.sagas.reconciler.internal;

import java.util.Optional;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.sagas.orchestrator.messaging.Topics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one input topic's records (headers and JSON body) into {@link Observation}s. A record that
 * cannot be read is skipped with a log line naming topic, key and why: the reconciliation goes on.
 */
final class ParseProcessor implements FixedKeyProcessor<String, byte[], Observation> {
    private static final Logger log = LoggerFactory.getLogger(ParseProcessor.class);

    private final String topic;
    private FixedKeyProcessorContext<String, Observation> context;

    ParseProcessor(String topic) {
        this.topic = topic;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, Observation> context) {
        this.context = context;
    }

    @Override
    public void process(FixedKeyRecord<String, byte[]> record) {
        try {
            Optional<Observation> o = read(record);
            o.ifPresent(observation -> context.forward(record.withValue(observation)));
        } catch (IllegalArgumentException e) {
            log.warn("reconciler skips a record of {} (key {}) it cannot read: {}", topic, record.key(),
                    e.getMessage());
        }
    }

    private Optional<Observation> read(FixedKeyRecord<String, byte[]> r) {
        switch (topic) {
            case Topics.ORDERS_EVENTS:
                return Parsing.orderEvent(r.key(), r.headers(), r.value());
            case Topics.PAYMENTS_COMMANDS:
                return Parsing.paymentCommand(r.key(), r.headers(), r.value());
            case Topics.PAYMENTS_EVENTS:
                return Parsing.paymentReply(r.key(), r.headers(), r.value());
            case Topics.LEDGER_CHARGES:
                return Parsing.ledgerCharge(r.value());
            case Topics.LEDGER_RESERVATIONS:
                return Parsing.ledgerReservation(r.value());
            default:
                throw new IllegalStateException("no reader for topic " + topic);
        }
    }
}
