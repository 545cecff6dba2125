package org.sagas.reconciler.internal;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.sagas.orchestrator.ordering.OrderStatus;

/**
 * Everything the topology knows about one order: its status, its charge command and reply, the
 * provider's charges and inventory's reservations for it, and its suspicions and findings. Stored
 * as JSON in the {@code order-ledger} state store. Each {@link Observation} is applied so that
 * order of arrival does not matter: statuses by saga version (an end status is never replaced),
 * ledger entries by feed cursor, a reply before its command still counts. Not thread-safe: one
 * stream thread owns it while processing its order.
 */
public final class OrderLedger {
    public String orderId;
    public OrderStatus status;
    public int statusVersion = -1;
    public long totalCents = -1;
    public String currency;
    public String chargeKey;
    public Long commandSeenAt;
    public boolean replied;
    public Map<String, Entry> charges = new TreeMap<>();
    public Map<String, Entry> reservations = new TreeMap<>();
    /** Discrepancies seen but not (yet) findings: finding id → since when, due when. */
    public Map<String, Suspicion> suspicions = new TreeMap<>();
    /** Open findings by id. */
    public Map<String, Opened> open = new TreeMap<>();
    /** Findings that were resolved: never opened again. */
    public Set<String> resolved = new TreeSet<>();

    /** A ledger entry's latest state. */
    public static final class Entry {
        public String status;
        public long amountCents;
        public String currency;
        public String cursor;
    }

    /** A discrepancy being watched: it becomes a finding if it still holds at {@code dueAt}. */
    public record Suspicion(long since, long dueAt) {}

    /** An open finding, with what its resolution must repeat. */
    public record Opened(String kind, String subject, String detail, long suspectedAt, long openedAt,
            String repairKey) {}

    public OrderLedger() {}

    OrderLedger(String orderId) {
        this.orderId = orderId;
    }

    boolean isKnown() {
        return status != null;
    }

    boolean isTerminal() {
        return status != null && status.isTerminal();
    }

    /** Applies {@code o}; false when it taught nothing new (a stale or repeated fact). */
    boolean apply(Observation o, long now) {
        if (o instanceof Observation.StatusSeen s) {
            return applyStatus(s);
        }
        if (o instanceof Observation.ChargeCommanded c) {
            boolean first = commandSeenAt == null;
            if (first) {
                commandSeenAt = now;
                chargeKey = c.chargeKey();
            }
            return first;
        }
        if (o instanceof Observation.PaymentReplied) {
            boolean first = !replied;
            replied = true;
            return first;
        }
        if (o instanceof Observation.LedgerCharge c) {
            return applyEntry(charges, c.chargeKey(), c.status(), c.amountCents(), c.currency(), c.cursor());
        }
        Observation.LedgerReservation r = (Observation.LedgerReservation) o;
        return applyEntry(reservations, r.reservationKey(), r.status(), 0, null, r.cursor());
    }

    private boolean applyStatus(Observation.StatusSeen s) {
        if (s.totalCents() >= 0) {
            totalCents = s.totalCents();
            currency = s.currency();
        }
        boolean newTerminal = s.status().isTerminal();
        boolean replaces = status == null
                || (newTerminal && !isTerminal())
                || (newTerminal == isTerminal() && s.sagaVersion() > statusVersion);
        if (replaces) {
            status = s.status();
            statusVersion = Math.max(statusVersion, s.sagaVersion());
        }
        return replaces;
    }

    private static boolean applyEntry(Map<String, Entry> entries, String key, String status, long amount,
            String currency, String cursor) {
        Entry current = entries.get(key);
        if (current != null && Cursors.compare(cursor, current.cursor) <= 0) {
            return false;
        }
        Entry e = new Entry();
        e.status = status;
        e.amountCents = amount;
        e.currency = currency;
        e.cursor = cursor;
        entries.put(key, e);
        return true;
    }
}
