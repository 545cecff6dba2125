package org.sagas.relay.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Sends one batch of rows and waits for the broker's answers.
 *
 * <p>Each aggregate's rows form a chain: its next row is handed to the producer only once every
 * message of the previous one is acknowledged, while the chains of different aggregates go out
 * together (and the producer batches them). So whatever goes wrong with a row (refused as too large,
 * timed out, the producer failing) no later row of the same aggregate can already be on its way to
 * overtake it: the chain stops at the first row not wholly acknowledged, which stays in the table and
 * heads the chain next round.
 *
 * <p>Within a row, messages for different topics go out together: they share no partition, so
 * neither can overtake the other where a consumer reads. Messages of the row for one topic form a
 * lane, each sent once the one before it on that topic is acknowledged (docs/decisions/0037). Not
 * thread-safe; one round at a time.
 */
public final class PublishRound {
    private static final long POLL_MILLIS = 50;

    private final Producer<String, String> producer;
    private final BooleanSupplier stopping;
    private final long stopGraceNanos;
    private final Acknowledgements acknowledgements;
    private final BlockingQueue<Completion> completions = new LinkedBlockingQueue<>();

    /** Told about each acknowledged row on the calling thread, with the nanoTime of the acknowledgement. */
    @FunctionalInterface
    public interface Acknowledgements {
        void acknowledged(OutboxRow row, long ackNanoTime);
    }

    public PublishRound(Producer<String, String> producer, BooleanSupplier stopping, long stopGraceNanos,
            Acknowledgements acknowledgements) {
        this.producer = producer;
        this.stopping = stopping;
        this.stopGraceNanos = stopGraceNanos;
        this.acknowledgements = acknowledgements;
    }

    /** Publishes {@code rows} (in id order) and returns what happened to each. */
    public Result publish(List<OutboxRow> rows) throws InterruptedException {
        Map<String, ArrayDeque<OutboxRow>> chains = new LinkedHashMap<>();
        for (OutboxRow row : rows) {
            chains.computeIfAbsent(row.aggregateId(), k -> new ArrayDeque<>()).add(row);
        }
        Result result = new Result();
        int open = 0;
        for (ArrayDeque<OutboxRow> chain : chains.values()) {
            start(chain.poll());
            open++;
        }
        boolean stopSeen = false;
        long stopDeadline = 0;
        while (open > 0) {
            Completion c = completions.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
            if (!stopSeen && stopping.getAsBoolean()) {
                stopSeen = true;
                stopDeadline = System.nanoTime() + stopGraceNanos;
            }
            if (c == null) {
                if (stopSeen && System.nanoTime() - stopDeadline > 0) {
                    result.abandoned = open;
                    break;
                }
                continue;
            }
            Sending sending = c.part().row();
            sending.inFlight--;
            boolean goOn = sending.failure == null && result.producerBroken == null && !stopping.getAsBoolean();
            if (c.error == null) {
                sending.acked++;
                Part next = sending.lanes.get(c.part().topic()).poll();
                if (next != null && goOn) {
                    send(next);
                    continue;
                }
            } else if (sending.failure == null) {
                // A message of a row failed: the whole row stays (or is dead-lettered) and is sent again
                // from its first message: at least once, as for any row.
                sending.failure = c.error;
                switch (SendFailure.of(c.error)) {
                    case POISON -> result.poisoned.add(new Poisoned(sending.row, c.error));
                    case RESTART_PRODUCER -> result.producerBroken = c.error;
                    case RETRY, STOPPED -> result.retryLater = result.retryLater == null ? c.error : result.retryLater;
                }
            }
            if (sending.inFlight > 0) {
                continue; // the row's other lanes are still on their way
            }
            if (sending.acked == sending.messages) {
                result.acked.add(sending.row);
                acknowledgements.acknowledged(sending.row, c.ackNanoTime);
                OutboxRow next = chains.get(sending.row.aggregateId()).poll();
                if (next != null && result.producerBroken == null && !stopping.getAsBoolean()) {
                    start(next);
                    continue;
                }
            }
            open--;
        }
        return result;
    }

    /** Sends the first message of each of the row's lanes (one lane per topic, in the row's order). */
    private void start(OutboxRow row) {
        Sending sending = new Sending(row);
        for (int index = 0; index <= row.more().size(); index++) {
            String topic = row.part(index).topic();
            sending.lanes.computeIfAbsent(topic, t -> new ArrayDeque<>()).add(new Part(sending, index, topic));
        }
        sending.lanes.values().forEach(lane -> send(lane.poll()));
    }

    private void send(Part part) {
        part.row().inFlight++;
        OutboxRow row = part.row().row;
        OutboxRow.Message m = row.part(part.index());
        RecordHeaders headers = new RecordHeaders();
        headers.add("message-id", m.messageId().toString().getBytes(StandardCharsets.UTF_8));
        headers.add("message-type", m.messageType().getBytes(StandardCharsets.UTF_8));
        if (row.correlationId() != null) {
            headers.add("correlation-id", row.correlationId().getBytes(StandardCharsets.UTF_8));
        }
        if (row.traceparent() != null) {
            // Copied as stored: the consumer continues the writer's trace (ADR 0018).
            headers.add("traceparent", row.traceparent().getBytes(StandardCharsets.UTF_8));
        }
        ProducerRecord<String, String> record =
                new ProducerRecord<>(m.topic(), null, row.aggregateId(), m.payload(), headers);
        AtomicBoolean reported = new AtomicBoolean();
        try {
            producer.send(record, (metadata, error) -> {
                if (reported.compareAndSet(false, true)) {
                    completions.add(new Completion(part, error, System.nanoTime()));
                }
            });
        } catch (RuntimeException e) {
            if (reported.compareAndSet(false, true)) {
                completions.add(new Completion(part, e, System.nanoTime()));
            }
        }
    }

    /** A row of this round on its way: its messages by lane, what is in flight, acknowledged, failed. */
    private static final class Sending {
        final OutboxRow row;
        final int messages;
        /** The row's messages not yet sent, by topic, in the row's order. */
        final Map<String, ArrayDeque<Part>> lanes = new LinkedHashMap<>();
        int inFlight;
        int acked;
        Exception failure;

        Sending(OutboxRow row) {
            this.row = row;
            this.messages = row.more().size() + 1;
        }
    }

    /** Message {@code index} of {@code row} (0: the row's own), on its topic's lane. */
    private record Part(Sending row, int index, String topic) {}

    private record Completion(Part part, Exception error, long ackNanoTime) {}

    /** A row the broker will never take, and why. */
    public record Poisoned(OutboxRow row, Exception error) {}

    /** The outcome of a round. Rows neither acknowledged nor poisoned stay in the table for a later round. */
    public static final class Result {
        private final List<OutboxRow> acked = new ArrayList<>();
        private final List<Poisoned> poisoned = new ArrayList<>();
        private Exception retryLater;
        private Exception producerBroken;
        private int abandoned;

        public List<OutboxRow> acked() {
            return acked;
        }

        public List<Poisoned> poisoned() {
            return poisoned;
        }

        /** The first transient failure, or null. */
        public Exception retryLater() {
            return retryLater;
        }

        /** The error that made the producer unusable, or null. */
        public Exception producerBroken() {
            return producerBroken;
        }

        /** Sends still unanswered when the relay stopped waiting (only when stopping). */
        public int abandoned() {
            return abandoned;
        }
    }
}
