package org.sagas.reconciler;

import org.sagas.orchestrator.messaging.KafkaConnection;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.sagas.adapters.messaging.ConsumerLoop;
import org.sagas.adapters.messaging.ParsedMessage;
import org.sagas.adapters.messaging.PoisonMessage;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.orchestrator.ordering.OrderStatus;
import org.sagas.orchestrator.persistence.Inbox;
import org.sagas.orchestrator.persistence.OutboxWriter;
import org.sagas.orchestrator.saga.IncomingMessage;
import org.sagas.orchestrator.messaging.OutgoingMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fills {@code reconciliation_finding} from {@code reconciliation.findings} (read committed: only
 * what the topology's transactions committed) and, for a finding that opens with an automatic
 * repair, writes the repair command to the outbox in the same transaction — after a last look at
 * the order (see {@link RepairSafety}). The finding id is the row's key and the message id goes to
 * the inbox, so a finding delivered twice, or found again after a restart, is stored and repaired
 * once. One log line per finding and state. Thread-safe.
 */
public final class FindingSink implements AutoCloseable {
    public static final String CONSUMER = "reconciliation-findings";
    private static final Logger log = LoggerFactory.getLogger(FindingSink.class);

    private final Jdbi jdbi;
    private final Function<String, Optional<OrderStatus>> orderStatus;
    private final Runnable afterOutboxWrite;
    private final MeterRegistry registry;
    private final ConsumerLoop loop;

    /**
     * @param orderStatus the order's status now (from the orders table), empty when there is no such order
     */
    public FindingSink(Jdbi jdbi, Function<String, Optional<OrderStatus>> orderStatus, KafkaConnection kafka,
            Runnable afterOutboxWrite, MeterRegistry registry) {
        this.jdbi = jdbi;
        this.orderStatus = orderStatus;
        this.afterOutboxWrite = afterOutboxWrite;
        this.registry = registry;
        this.loop = new ConsumerLoop(kafka, CONSUMER, Topics.RECONCILIATION_FINDINGS, this::handle,
                ConsumerLoop.BatchGate.NONE, registry, ConsumerLoop.DEFAULT_RETRY_FOR, ConsumerLoop.DeadLetterListener.NONE,
                Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"));
    }

    public FindingSink start() {
        loop.start();
        return this;
    }

    /** What became of a finding: stored (and how its repair went) or seen before. */
    enum Stored { OPENED_REPAIR_REQUESTED, OPENED_REPAIR_SKIPPED, OPENED, RESOLVED, ALREADY_KNOWN }

    List<ConsumerLoop.Rejected> handle(List<ConsumerRecord<String, byte[]>> records) {
        List<ConsumerLoop.Rejected> rejected = new ArrayList<>();
        Map<UUID, Finding> findings = new LinkedHashMap<>();
        for (ConsumerRecord<String, byte[]> record : records) {
            try {
                IncomingMessage m = ParsedMessage.parse(record);
                findings.put(m.messageId(), read(record.value()));
            } catch (PoisonMessage e) {
                rejected.add(new ConsumerLoop.Rejected(record, e.getMessage()));
            }
        }
        // The last look at each order happens before the transaction: it reads the orders table only.
        Map<UUID, Optional<String>> refusals = new LinkedHashMap<>();
        findings.forEach((id, f) -> refusals.put(id, f.isOpen() && f.action() != RepairAction.NONE
                ? RepairSafety.refuses(f, orderStatus.apply(f.orderId())) : Optional.empty()));
        Map<UUID, Stored> outcomes = jdbi.inTransaction(h -> {
            Set<UUID> fresh = Inbox.firstDeliveries(h, CONSUMER, findings.keySet());
            Map<UUID, Stored> out = new LinkedHashMap<>();
            findings.forEach((id, f) -> out.put(id, fresh.contains(id) ? store(h, f, refusals.get(id))
                    : Stored.ALREADY_KNOWN));
            return out;
        });
        boolean wroteOutbox = false;
        for (Map.Entry<UUID, Stored> e : outcomes.entrySet()) {
            report(findings.get(e.getKey()), e.getValue(), refusals.get(e.getKey()));
            wroteOutbox |= e.getValue() == Stored.OPENED_REPAIR_REQUESTED;
        }
        if (wroteOutbox) {
            afterOutboxWrite.run();
        }
        return rejected;
    }

    private static Stored store(Handle h, Finding f, Optional<String> refusal) {
        if (!f.isOpen()) {
            int updated = h.createUpdate("INSERT INTO reconciliation_finding (finding_id, kind, state, order_id,"
                            + " subject, detail, action, repair_key, repair, opened_at, resolved_at) VALUES (:id, :kind,"
                            + " 'RESOLVED', :order, :subject, :detail, :action, :repairKey, 'NONE', :opened, :resolved)"
                            + " ON CONFLICT (finding_id) DO UPDATE SET state = 'RESOLVED', detail = EXCLUDED.detail,"
                            + " resolved_at = EXCLUDED.resolved_at, updated_at = now()"
                            + " WHERE reconciliation_finding.state = 'OPEN'")
                    .bindMap(values(f)).execute();
            return updated == 1 ? Stored.RESOLVED : Stored.ALREADY_KNOWN;
        }
        boolean repair = f.action() != RepairAction.NONE && refusal.isEmpty();
        String repairState = f.action() == RepairAction.NONE ? "NONE" : repair ? "REQUESTED" : "SKIPPED";
        int inserted = h.createUpdate("INSERT INTO reconciliation_finding (finding_id, kind, state, order_id, subject,"
                        + " detail, action, repair_key, repair, opened_at) VALUES (:id, :kind, 'OPEN', :order, :subject,"
                        + " :detail, :action, :repairKey, :repair, :opened) ON CONFLICT (finding_id) DO NOTHING")
                .bindMap(values(f)).bind("repair", repairState).execute();
        if (inserted == 0) {
            return Stored.ALREADY_KNOWN; // found again (another instance, a restart): repaired once already
        }
        if (!repair) {
            return f.action() == RepairAction.NONE ? Stored.OPENED : Stored.OPENED_REPAIR_SKIPPED;
        }
        String type = f.action() == RepairAction.REFUND ? RepairCommand.REFUND_CHARGE : RepairCommand.RELEASE_RESERVATION;
        OutboxWriter.append(h, List.of(new OutgoingMessage(Topics.RECONCILIATION_REPAIRS, f.orderId(), type,
                new RepairCommand(f.findingId(), f.orderId(), f.subject(), f.repairKey()))));
        return Stored.OPENED_REPAIR_REQUESTED;
    }

    private void report(Finding f, Stored outcome, Optional<String> refusal) {
        if (outcome == Stored.ALREADY_KNOWN) {
            log.debug("finding {} ({}) of order {} seen before", f.findingId(), f.state(), f.orderId());
            return;
        }
        switch (outcome) {
            case OPENED_REPAIR_REQUESTED:
                log.warn("reconciliation finding {} OPEN: order {}: {}; repair {} requested under key {}", f.kind(),
                        f.orderId(), f.detail(), f.action(), f.repairKey());
                break;
            case OPENED_REPAIR_SKIPPED:
                log.warn("reconciliation finding {} OPEN: order {}: {}; repair {} NOT requested: {}", f.kind(),
                        f.orderId(), f.detail(), f.action(), refusal.orElse("refused"));
                break;
            case OPENED:
                log.warn("reconciliation finding {} OPEN: order {}: {}; for an operator", f.kind(), f.orderId(),
                        f.detail());
                break;
            default:
                log.info("reconciliation finding {} RESOLVED: order {}: {}", f.kind(), f.orderId(), f.detail());
        }
        Counter.builder("saga.reconciliation.findings.stored").tag("kind", f.kind().name())
                .tag("outcome", outcome.name().toLowerCase(java.util.Locale.ROOT))
                .description("Findings stored by the findings sink, by what became of them").register(registry)
                .increment();
    }

    private static Map<String, Object> values(Finding f) {
        Map<String, Object> m = new java.util.HashMap<>();
        m.put("id", f.findingId());
        m.put("kind", f.kind().name());
        m.put("order", f.orderId());
        m.put("subject", f.subject() == null ? "" : f.subject());
        m.put("detail", f.detail());
        m.put("action", f.action().name());
        m.put("repairKey", f.repairKey());
        m.put("opened", Timestamp.from(f.openedAt()));
        m.put("resolved", f.resolvedAt() == null ? null : Timestamp.from(f.resolvedAt()));
        return m;
    }

    private static Finding read(byte[] value) {
        try {
            Finding f = Json.mapper().readValue(value, Finding.class);
            if (f.findingId() == null || f.kind() == null || f.state() == null || f.orderId() == null
                    || f.openedAt() == null || f.action() == null) {
                throw new PoisonMessage("finding without id, kind, state, order, openedAt or action");
            }
            return f;
        } catch (IOException e) {
            throw new PoisonMessage("not a finding: " + e.getMessage());
        }
    }

    @Override
    public void close() {
        loop.close();
    }
}
