package org.sagas.reconciler.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.reconciler.Finding;
import org.sagas.reconciler.ReconcilerConfig;

/**
 * The reconciliation over all inputs, keyed by order: applies each fact to the order's
 * {@link OrderLedger}, lets the {@link Evaluator} decide, and forwards the findings it opens or
 * resolves. A redelivered or replayed fact is applied again and teaches nothing: the ledger is
 * idempotent by construction (statuses by saga version, entries by cursor, firsts kept), which is
 * what makes at-least-once processing safe here. A store of message ids seen would not be: its
 * writes reach the changelog at once while the cached ledger's wait for the commit, so after a
 * crash between the two a replayed fact was skipped as seen and its effect lost (docs/decisions/0029).
 * Suspicions fall due on wall-clock time: a punctuator re-evaluates the orders whose next due time passed (kept in a
 * store ordered by time), so a finding opens even when no further record arrives for its order.
 */
public final class ReconcileProcessor implements Processor<String, Observation, String, Finding> {
    public static final String LEDGERS = "order-ledger";
    public static final String TIMERS = "due-checks";
    public static final String FINDING_TYPE = "ReconciliationFinding";

    private final ReconcilerConfig config;
    private final InputLag inputLag;
    private final Evaluator evaluator;
    private ProcessorContext<String, Finding> context;
    private KeyValueStore<String, OrderLedger> ledgers;
    private KeyValueStore<String, String> timers;
    /** Per input topic: the latest record timestamp seen in this task, and the wall-clock time it came. */
    private final Map<String, long[]> inputClocks = new HashMap<>();
    private long startedAt;

    public ReconcileProcessor(ReconcilerConfig config, InputLag inputLag) {
        this.config = config;
        this.inputLag = inputLag;
        this.evaluator = new Evaluator(config);
    }

    @Override
    public void init(ProcessorContext<String, Finding> context) {
        this.context = context;
        this.ledgers = context.getStateStore(LEDGERS);
        this.timers = context.getStateStore(TIMERS);
        this.startedAt = context.currentSystemTimeMs();
        context.schedule(config.checkInterval(), PunctuationType.WALL_CLOCK_TIME, this::checkDue);
    }

    @Override
    public void process(Record<String, Observation> record) {
        Observation o = record.value();
        tick(record.timestamp());
        OrderLedger ledger = ledgers.get(o.orderId());
        if (ledger == null) {
            ledger = new OrderLedger(o.orderId());
        }
        ledger.apply(o, record.timestamp());
        settle(ledger, record.timestamp(), now());
    }

    /**
     * The time suspicions are measured against: the input that is furthest behind decides. Each
     * input topic's clock is the timestamp of its last record here; while the topic is caught up
     * (nothing left on the broker for this partition) it is carried forward by the wall-clock time
     * since that record came, and while it is behind, it waits. The processor's clock is the
     * earliest of them, never ahead of the wall clock. So a backlog — a restart, a replay, one topic
     * fetched more slowly than another — never makes evidence look late, and on quiet inputs the
     * clock moves with the wall clock, so findings open without further traffic. Before any record
     * came in this task's life, stream time (restored from the last commit) carried forward since
     * the task started stands in.
     */
    private long now() {
        long wall = context.currentSystemTimeMs();
        if (inputClocks.isEmpty()) {
            long streamTime = context.currentStreamTimeMs();
            return streamTime < 0 ? wall : Math.min(wall, streamTime + Math.max(0, wall - startedAt));
        }
        int partition = context.taskId().partition();
        long earliest = Long.MAX_VALUE;
        for (Map.Entry<String, long[]> input : inputClocks.entrySet()) {
            long[] clock = input.getValue();
            boolean caughtUp = inputLag.lag(input.getKey(), partition) <= 0; // not known yet counts as caught up
            earliest = Math.min(earliest, caughtUp ? clock[0] + Math.max(0, wall - clock[1]) : clock[0]);
        }
        return Math.min(wall, earliest);
    }

    private void tick(long recordTimestamp) {
        String topic = context.recordMetadata().map(m -> m.topic()).orElse("");
        long[] clock = inputClocks.computeIfAbsent(topic, t -> new long[2]);
        clock[0] = Math.max(clock[0], recordTimestamp);
        clock[1] = context.currentSystemTimeMs();
    }

    /**
     * Evaluates the order at {@code now} (a discrepancy first seen now counts from
     * {@code observedAt}), stores it, books its next check, forwards its findings.
     */
    private void settle(OrderLedger ledger, long observedAt, long now) {
        java.util.OptionalLong booked = evaluator.nextDue(ledger);
        List<Finding> findings = evaluator.step(ledger, observedAt, now);
        ledgers.put(ledger.orderId, ledger);
        java.util.OptionalLong due = evaluator.nextDue(ledger);
        // A check already booked for that time stays booked (one store write fewer per record).
        if (due.isPresent() && (!booked.equals(due) || observedAt == now)) {
            timers.put(timerKey(due.getAsLong(), ledger.orderId), ledger.orderId);
        }
        for (Finding f : findings) {
            RecordHeaders headers = new RecordHeaders();
            headers.add(Topics.MESSAGE_ID, f.messageId().toString().getBytes(StandardCharsets.UTF_8));
            headers.add(Topics.MESSAGE_TYPE, FINDING_TYPE.getBytes(StandardCharsets.UTF_8));
            headers.add(Topics.CORRELATION_ID, f.orderId().getBytes(StandardCharsets.UTF_8));
            context.forward(new Record<>(f.orderId(), f, now, headers));
        }
    }

    private void checkDue(long wallClock) {
        long now = now();
        List<KeyValue<String, String>> due = new ArrayList<>();
        try (KeyValueIterator<String, String> it = timers.range(timerKey(0, ""), String.format("%013d~", now))) {
            it.forEachRemaining(due::add);
        }
        for (KeyValue<String, String> timer : due) {
            timers.delete(timer.key);
            OrderLedger ledger = ledgers.get(timer.value);
            if (ledger != null) {
                settle(ledger, now, now);
            }
        }
    }

    /** Sorts by due time as text: 13 digits of epoch milliseconds, then the order. */
    private static String timerKey(long dueAt, String orderId) {
        return String.format("%013d:%s", dueAt, orderId);
    }
}
