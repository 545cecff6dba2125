package org.sagas.reconciler.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import org.sagas.orchestrator.ordering.OrderKeys;
import org.sagas.orchestrator.ordering.OrderStatus;
import org.sagas.reconciler.Finding;
import org.sagas.reconciler.FindingKind;
import org.sagas.reconciler.FindingState;
import org.sagas.reconciler.ReconcilerConfig;

/**
 * The reconciliation's decisions, pure: from what is known of an order and the time now, which
 * discrepancies hold, which of them lasted long enough to become findings, and which findings no
 * longer hold. No I/O, no clock of its own. Stateless and thread-safe.
 */
public final class Evaluator {
    private final ReconcilerConfig config;

    public Evaluator(ReconcilerConfig config) {
        this.config = config;
    }

    /** A discrepancy that holds now, and how long it must last to become a finding. */
    record Condition(FindingKind kind, String subject, String detail, long delayMillis, String repairKey) {}

    /** As {@link #step(OrderLedger, long, long)} with a discrepancy first seen at {@code now}. */
    public List<Finding> step(OrderLedger ledger, long now) {
        return step(ledger, now, now);
    }

    /**
     * Moves {@code ledger}'s suspicions and findings on to {@code now}; a discrepancy not seen
     * before counts from {@code observedAt} (the time of the fact that revealed it). Returns the
     * findings to publish (opened or resolved), in a stable order.
     */
    public List<Finding> step(OrderLedger ledger, long observedAt, long now) {
        Map<String, Condition> holding = new LinkedHashMap<>();
        for (Condition c : conditions(ledger)) {
            holding.put(Finding.idOf(c.kind(), ledger.orderId, c.subject()).toString(), c);
        }
        List<Finding> out = new ArrayList<>();
        for (Map.Entry<String, Condition> e : holding.entrySet()) {
            String id = e.getKey();
            Condition c = e.getValue();
            if (ledger.resolved.contains(id) || ledger.open.containsKey(id)) {
                continue;
            }
            OrderLedger.Suspicion s = ledger.suspicions.computeIfAbsent(id,
                    k -> new OrderLedger.Suspicion(observedAt, observedAt + c.delayMillis()));
            if (now >= s.dueAt()) {
                ledger.suspicions.remove(id);
                OrderLedger.Opened opened = new OrderLedger.Opened(c.kind().name(), c.subject(), c.detail(),
                        s.since(), now, c.repairKey());
                ledger.open.put(id, opened);
                out.add(finding(ledger, id, opened, FindingState.OPEN, c.detail(), null));
            }
        }
        ledger.suspicions.keySet().removeIf(id -> !holding.containsKey(id));
        for (String id : List.copyOf(ledger.open.keySet())) {
            if (!holding.containsKey(id)) {
                OrderLedger.Opened opened = ledger.open.remove(id);
                ledger.resolved.add(id);
                out.add(finding(ledger, id, opened, FindingState.RESOLVED,
                        opened.detail() + "; resolved: " + resolution(ledger, opened), now));
            }
        }
        return out;
    }

    /** When the next suspicion of {@code ledger} falls due, if any. */
    public OptionalLong nextDue(OrderLedger ledger) {
        return ledger.suspicions.values().stream().mapToLong(OrderLedger.Suspicion::dueAt).min();
    }

    List<Condition> conditions(OrderLedger l) {
        List<Condition> out = new ArrayList<>();
        String expectedKey = l.chargeKey != null ? l.chargeKey : derived(l.orderId, true);
        boolean notLive = l.status == OrderStatus.CANCELLED || l.status == OrderStatus.REJECTED;
        boolean anyCapture = false;
        for (Map.Entry<String, OrderLedger.Entry> e : l.charges.entrySet()) {
            String key = e.getKey();
            OrderLedger.Entry c = e.getValue();
            if (!"CAPTURED".equals(c.status)) {
                continue;
            }
            anyCapture = true;
            String money = c.amountCents + " " + c.currency;
            String refundKey = key + ":refund";
            if (!l.isKnown()) {
                out.add(new Condition(FindingKind.CHARGED_NOT_CONFIRMED, key, "charge " + key + " captured " + money
                        + " for an order the orchestrator never announced", config.unknownOrderGrace().toMillis(),
                        refundKey));
            } else if (notLive) {
                out.add(new Condition(FindingKind.CHARGED_NOT_CONFIRMED, key, "charge " + key + " captured " + money
                        + " while the order is " + l.status, config.grace().toMillis(), refundKey));
            } else if (l.status == OrderStatus.CONFIRMED && !key.equals(expectedKey)) {
                out.add(new Condition(FindingKind.CHARGED_NOT_CONFIRMED, key, "second capture " + key + " (" + money
                        + ") for an order confirmed by charge " + expectedKey, config.grace().toMillis(), refundKey));
            }
            if (l.isKnown() && key.equals(expectedKey) && l.totalCents >= 0
                    && (c.amountCents != l.totalCents || (l.currency != null && !l.currency.equals(c.currency)))) {
                out.add(new Condition(FindingKind.AMOUNT_MISMATCH, key, "charge " + key + " captured " + money
                        + " but the order's total is " + l.totalCents + " " + l.currency, config.grace().toMillis(),
                        null));
            }
        }
        if (l.status == OrderStatus.CONFIRMED && !anyCapture) {
            OrderLedger.Entry own = l.charges.get(expectedKey);
            out.add(new Condition(FindingKind.CONFIRMED_NOT_CHARGED, expectedKey, "order confirmed but the provider's"
                    + " ledger has no captured charge (" + expectedKey + ": " + (own == null ? "none" : own.status)
                    + ")", config.grace().toMillis(), null));
        }
        // A saga that replies arrive in-process for (ADR 0019) writes none to payments.events: its
        // order moving on to COMPENSATING says the saga no longer waits for one.
        if (l.commandSeenAt != null && !l.replied && !l.isTerminal() && l.status != OrderStatus.COMPENSATING) {
            out.add(new Condition(FindingKind.CHARGE_WITHOUT_REPLY, l.chargeKey, "charge command " + l.chargeKey
                    + " got no payment reply within " + config.replyWindow().toSeconds() + " s",
                    config.replyWindow().toMillis(), null));
        }
        for (Map.Entry<String, OrderLedger.Entry> e : l.reservations.entrySet()) {
            if (!"RESERVED".equals(e.getValue().status) || (l.isKnown() && !notLive)) {
                continue;
            }
            String key = e.getKey();
            out.add(new Condition(FindingKind.RESERVED_NOT_ORDERED, key, "reservation " + key + " holds stock for "
                    + (l.isKnown() ? "an order that is " + l.status : "an order the orchestrator never announced"),
                    (l.isKnown() ? config.grace() : config.unknownOrderGrace()).toMillis(), releaseKey(l.orderId, key)));
        }
        return out;
    }

    private static String resolution(OrderLedger l, OrderLedger.Opened f) {
        OrderLedger.Entry charge = l.charges.get(f.subject());
        OrderLedger.Entry reservation = l.reservations.get(f.subject());
        switch (FindingKind.valueOf(f.kind())) {
            case CHARGED_NOT_CONFIRMED:
                return charge != null && "REFUNDED".equals(charge.status) ? "refund seen in the provider's ledger"
                        : "order is " + l.status + ", charge " + (charge == null ? "unknown" : charge.status);
            case RESERVED_NOT_ORDERED:
                return reservation != null && "RELEASED".equals(reservation.status)
                        ? "release seen in inventory's ledger" : "order is " + l.status;
            case CONFIRMED_NOT_CHARGED:
                return "a captured charge is in the provider's ledger";
            case CHARGE_WITHOUT_REPLY:
                return l.replied ? "payment reply seen" : l.isTerminal() ? "order ended " + l.status
                        : "order is " + l.status + ", no longer waiting for the reply";
            default:
                return "captured amount and order total agree";
        }
    }

    private static Finding finding(OrderLedger l, String id, OrderLedger.Opened o, FindingState state, String detail,
            Long resolvedAt) {
        FindingKind kind = FindingKind.valueOf(o.kind());
        return new Finding(UUID.fromString(id), kind, state, l.orderId, o.subject(), detail,
                Instant.ofEpochMilli(o.suspectedAt()), Instant.ofEpochMilli(o.openedAt()),
                resolvedAt == null ? null : Instant.ofEpochMilli(resolvedAt), kind.action(), o.repairKey());
    }

    /** The order's own charge key ({@code charge}) or reservation key, when its id is an order id. */
    private static String derived(String orderId, boolean charge) {
        try {
            UUID id = UUID.fromString(orderId);
            return charge ? OrderKeys.charge(id) : OrderKeys.reserve(id);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * The saga releases its own reservation under the order's release key; using the same key means
     * that whichever of the saga and the reconciler comes second finds the release done.
     */
    static String releaseKey(String orderId, String reservationKey) {
        String own = derived(orderId, false);
        return reservationKey.equals(own) ? OrderKeys.release(UUID.fromString(orderId)) : reservationKey + ":release";
    }
}
