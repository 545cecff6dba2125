package org.sagas.app.check;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.sagas.orchestrator.ordering.OrderStatus;

/**
 * The invariants as pure functions of what was read (docs/operations.md, "Checking the
 * invariants"). Each returns every offence with why; {@link Checker} caps and confirms them.
 */
final class Judges {
    private static final Set<OrderStatus> UNDONE = EnumSet.of(OrderStatus.CANCELLED, OrderStatus.REJECTED);

    private Judges() {}

    static Offences notTerminal(List<ProductDatabase.Order> remaining, CheckOptions options) {
        Map<String, String> why = new LinkedHashMap<>();
        for (ProductDatabase.Order o : remaining) {
            if (options.inScope(o.id().toString())) {
                why.put(o.id().toString(), o.status() + ", accepted " + o.createdAt());
            }
        }
        return new Offences(why, "waited up to " + options.settle().toSeconds() + " s", true);
    }

    static Offences chargedTwice(Snapshot s, CheckOptions options) {
        Map<String, List<String>> captured = capturesByOrder(s, options);
        Map<String, String> why = new LinkedHashMap<>();
        captured.forEach((order, keys) -> {
            if (keys.size() > 1) {
                why.put(order, keys.size() + " captures: " + String.join(", ", keys));
            }
        });
        return new Offences(why, s.charges().size() + " charges", true);
    }

    static Offences confirmedWithoutCapture(Snapshot s, CheckOptions options) {
        Map<String, List<String>> captured = capturesByOrder(s, options);
        Map<String, String> why = new LinkedHashMap<>();
        long confirmed = 0;
        for (ProductDatabase.Order o : sorted(s)) {
            if (o.status() == OrderStatus.CONFIRMED && options.inScope(o.id().toString())) {
                confirmed++;
                if (!captured.containsKey(o.id().toString())) {
                    why.put(o.id().toString(), "CONFIRMED, charges " + chargeStatuses(s, o.id().toString()));
                }
            }
        }
        return new Offences(why, confirmed + " confirmed orders", true);
    }

    static Offences captureNotRefunded(Snapshot s, CheckOptions options) {
        Map<String, List<String>> captured = capturesByOrder(s, options);
        Map<String, String> why = new LinkedHashMap<>();
        long undone = 0;
        for (ProductDatabase.Order o : sorted(s)) {
            if (UNDONE.contains(o.status()) && options.inScope(o.id().toString())) {
                undone++;
                List<String> keys = captured.get(o.id().toString());
                if (keys != null) {
                    why.put(o.id().toString(), o.status() + ", captured under " + String.join(", ", keys));
                }
            }
        }
        return new Offences(why, undone + " cancelled or rejected orders", true);
    }

    /**
     * Per SKU: what it was stocked with, less what confirmed orders took, less what reservations of
     * orders still live (or unknown to the product) hold, is what is available. A cancelled or
     * rejected order's reservation is not counted: if it still holds stock, the stock is short. A SKU
     * that moved while the pass read it ({@link Snapshot#moving}) is not judged.
     */
    static Offences stock(Snapshot s) {
        Map<String, Long> held = new HashMap<>();
        for (Ledgers.Reservation r : s.reservations()) {
            Optional<OrderStatus> status = s.status(r.orderId());
            boolean live = status.isEmpty() || !status.get().isTerminal();
            if (r.held() && live) {
                r.lines().forEach(l -> held.merge(l.sku(), l.quantity(), Long::sum));
            }
        }
        Map<String, String> why = new LinkedHashMap<>();
        List<String> unknown = new ArrayList<>();
        int moving = 0;
        for (Ledgers.Stock st : new TreeMap<>(s.stock()).values()) {
            if (st.stocked().isEmpty()) {
                unknown.add(st.sku());
                continue;
            }
            if (s.moving().contains(st.sku())) {
                moving++;
                continue;
            }
            long confirmed = s.confirmed().getOrDefault(st.sku(), 0L);
            long live = held.getOrDefault(st.sku(), 0L);
            long expected = st.stocked().getAsLong() - confirmed - live;
            if (expected != st.available()) {
                why.put(st.sku(), "stocked " + st.stocked().getAsLong() + " - confirmed " + confirmed + " - held " + live
                        + " = " + expected + ", available " + st.available());
            }
        }
        if (!s.stock().isEmpty() && unknown.size() == s.stock().size()) {
            return Offences.notJudged("the inventory does not say what its SKUs were stocked with (no \"stocked\""
                    + " in GET /stock/{sku})");
        }
        return new Offences(why, s.stock().size() + " SKUs" + (unknown.isEmpty() ? ""
                : ", " + unknown.size() + " without \"stocked\" not judged")
                + (moving == 0 ? "" : ", " + moving + " moving while read not judged"), true);
    }

    static Offences reservedNotLive(Snapshot s, CheckOptions options) {
        Map<String, String> why = new TreeMap<>();
        for (Ledgers.Reservation r : s.reservations()) {
            Optional<OrderStatus> status = s.status(r.orderId());
            if (r.held() && status.isPresent() && UNDONE.contains(status.get()) && options.inScope(r.orderId())) {
                why.put(r.orderId(), status.get() + ", " + r.key() + " RESERVED");
            }
        }
        return new Offences(why, s.reservations().size() + " reservations", true);
    }

    static Offences outbox(Snapshot s, CheckOptions options) {
        Map<String, String> why = new LinkedHashMap<>();
        for (ProductDatabase.StuckRow row : s.stuck()) {
            if (options.inScope(row.orderId())) {
                why.putIfAbsent(row.orderId(), (row.deadLetter() ? "dead-lettered row" : "unpublished row")
                        + " written " + row.createdAt());
            }
        }
        return new Offences(why, "older than " + options.outboxAge().toSeconds() + " s", true);
    }

    /**
     * Per order key, in offset order, each message id counted once (the relay delivers at least
     * once): the version grows, and each status may follow the one before ({@link OrderMoves}).
     */
    static Offences events(List<OrderEvents.Event> events, CheckOptions options) {
        Map<String, List<OrderEvents.Event>> byOrder = events.stream().filter(e -> e.orderId() != null)
                .filter(e -> options.inScope(e.orderId()))
                .collect(Collectors.groupingBy(OrderEvents.Event::orderId, TreeMap::new, Collectors.toList()));
        Map<String, String> why = new LinkedHashMap<>();
        byOrder.forEach((order, list) -> {
            String wrong = outOfOrder(list);
            if (wrong != null) {
                why.put(order, wrong);
            }
        });
        return new Offences(why, events.size() + " events of " + byOrder.size() + " orders", true);
    }

    /** Why {@code events} of one order are out of order, or null. */
    private static String outOfOrder(List<OrderEvents.Event> events) {
        List<OrderEvents.Event> inOrder = new ArrayList<>(events);
        inOrder.sort(java.util.Comparator.comparingInt(OrderEvents.Event::partition)
                .thenComparingLong(OrderEvents.Event::offset));
        Set<String> seen = new java.util.HashSet<>();
        OrderEvents.Event before = null;
        for (OrderEvents.Event e : inOrder) {
            if (e.messageId() != null && !seen.add(e.messageId())) {
                continue;
            }
            OrderStatus status = statusOf(e);
            if (status == null || e.version() == null) {
                return "unreadable event at " + at(e);
            }
            if (before != null) {
                OrderStatus was = statusOf(before);
                if (e.version() <= before.version()) {
                    return "version " + e.version() + " (" + status + ") after " + before.version() + " (" + was
                            + ") at " + at(e);
                }
                if (!OrderMoves.allowed(was, status)) {
                    return status + " after " + was + " at " + at(e);
                }
            }
            before = e;
        }
        return null;
    }

    private static OrderStatus statusOf(OrderEvents.Event e) {
        try {
            return e.status() == null ? null : OrderStatus.valueOf(e.status());
        } catch (IllegalArgumentException unknown) {
            return null;
        }
    }

    private static String at(OrderEvents.Event e) {
        return "partition " + e.partition() + " offset " + e.offset();
    }

    static Offences incidents(Snapshot s, CheckOptions options) {
        Map<String, String> why = new LinkedHashMap<>();
        s.incidents().stream().filter(i -> options.inScope(i.orderId())).forEach(i -> why.put(i.orderId(), i.cause()));
        return new Offences(why, byCount(why), true);
    }

    static Offences findings(Snapshot s, CheckOptions options) {
        Map<String, String> why = new LinkedHashMap<>();
        s.findings().stream().filter(f -> options.inScope(f.orderId()))
                .forEach(f -> why.merge(f.orderId(), f.kind(), (a, b) -> a + ", " + b));
        return new Offences(why, byCount(why), true);
    }

    /** "2 STEP_FAILED, 1 POISON_REPLY" (or "none"). */
    private static String byCount(Map<String, String> why) {
        if (why.isEmpty()) {
            return "none";
        }
        Map<String, Long> counted = why.values().stream().flatMap(v -> java.util.Arrays.stream(v.split(", ")))
                .collect(Collectors.groupingBy(v -> v, TreeMap::new, Collectors.counting()));
        return counted.entrySet().stream().map(e -> e.getValue() + " " + e.getKey()).collect(Collectors.joining(", "));
    }

    /** The keys of the CAPTURED charges of each order in scope, orders sorted. */
    private static Map<String, List<String>> capturesByOrder(Snapshot s, CheckOptions options) {
        Map<String, List<String>> captured = new TreeMap<>();
        for (Ledgers.Charge c : s.charges()) {
            if (c.captured() && options.inScope(c.orderId())) {
                captured.computeIfAbsent(c.orderId(), k -> new ArrayList<>()).add(c.key());
            }
        }
        return captured;
    }

    private static List<String> chargeStatuses(Snapshot s, String orderId) {
        return s.charges().stream().filter(c -> c.orderId().equals(orderId)).map(c -> c.key() + " " + c.status())
                .toList();
    }

    /** The orders oldest first (ties by id), so reports name the same first ids every time. */
    private static List<ProductDatabase.Order> sorted(Snapshot s) {
        List<ProductDatabase.Order> orders = new ArrayList<>(s.orders().values());
        orders.sort(java.util.Comparator.comparing(ProductDatabase.Order::createdAt)
                .thenComparing(ProductDatabase.Order::id));
        return orders;
    }
}
