package org.sagas.app.check;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Checks the invariants against a running product (docs/operations.md, "Checking the
 * invariants"), reading only: its PostgreSQL, its {@code orders.events} and its participants'
 * ledgers. First it waits up to the settle time for the accepted orders to become terminal; then it
 * reads everything once and judges; what failed is read and judged again a moment later, and only
 * offences seen both times are reported, so an order moving between two reads of a running
 * product is not taken for a broken one.
 */
public final class Checker {
    private static final Duration POLL = Duration.ofMillis(250);
    private static final Duration CONFIRM_AFTER = Duration.ofMillis(500);

    private Checker() {}

    /**
     * Runs the check.
     *
     * @throws Unreachable if a part of the product could not be read (nothing is judged then)
     */
    public static Report run(Target target, CheckOptions options) {
        Ledgers ledgers = new Ledgers(target);
        try (ProductDatabase db = ProductDatabase.open(target)) {
            Instant startedAt = db.now();
            Map<Invariant, Offences> found = new EnumMap<>(Invariant.class);
            if (options.judges(Invariant.NOT_TERMINAL)) {
                found.put(Invariant.NOT_TERMINAL, Judges.notTerminal(settle(db, startedAt, options), options));
            }
            Map<Invariant, Offences> judged = judge(read(db, ledgers, options), options);
            if (judged.values().stream().anyMatch(o -> !o.why().isEmpty())) {
                pause(CONFIRM_AFTER);
                Map<Invariant, Offences> again = judge(read(db, ledgers, options), options);
                judged.replaceAll((invariant, first) -> first.confirmedBy(again.get(invariant)));
            }
            found.putAll(judged);
            if (options.judges(Invariant.EVENTS_OUT_OF_ORDER)) {
                found.put(Invariant.EVENTS_OUT_OF_ORDER, Judges.events(OrderEvents.read(target.kafka()), options));
            }
            List<Verdict> verdicts = new ArrayList<>();
            found.forEach((invariant, offences) -> verdicts.add(offences.verdict(invariant, options.maxIds())));
            return new Report(startedAt, options, verdicts);
        }
    }

    /** Waits until no order accepted before the check is still moving, or the settle time is over. */
    private static List<ProductDatabase.Order> settle(ProductDatabase db, Instant startedAt, CheckOptions options) {
        long until = System.nanoTime() + options.settle().toNanos();
        while (true) {
            List<ProductDatabase.Order> open = db.notTerminal(startedAt).stream()
                    .filter(o -> options.inScope(o.id().toString())).toList();
            if (open.isEmpty() || System.nanoTime() >= until) {
                return open;
            }
            pause(POLL);
        }
    }

    private static Map<Invariant, Offences> judge(Snapshot s, CheckOptions options) {
        Map<Invariant, Offences> judged = new LinkedHashMap<>();
        put(judged, options, Invariant.CHARGED_TWICE, () -> Judges.chargedTwice(s, options));
        put(judged, options, Invariant.CONFIRMED_WITHOUT_CAPTURE, () -> Judges.confirmedWithoutCapture(s, options));
        put(judged, options, Invariant.CAPTURE_NOT_REFUNDED, () -> Judges.captureNotRefunded(s, options));
        put(judged, options, Invariant.STOCK_MISMATCH, () -> Judges.stock(s));
        put(judged, options, Invariant.RESERVED_NOT_LIVE, () -> Judges.reservedNotLive(s, options));
        put(judged, options, Invariant.OUTBOX_STUCK, () -> Judges.outbox(s, options));
        put(judged, options, Invariant.OPEN_INCIDENTS, () -> Judges.incidents(s, options));
        put(judged, options, Invariant.OPEN_FINDINGS, () -> Judges.findings(s, options));
        return judged;
    }

    private static void put(Map<Invariant, Offences> judged, CheckOptions options, Invariant invariant,
            java.util.function.Supplier<Offences> judge) {
        if (options.judges(invariant)) {
            judged.put(invariant, judge.get());
        }
    }

    /** One pass of reads, ledgers before orders (see {@link Snapshot}); only what the invariants asked for need. */
    private static Snapshot read(ProductDatabase db, Ledgers ledgers, CheckOptions options) {
        boolean money = options.judges(Invariant.CHARGED_TWICE) || options.judges(Invariant.CONFIRMED_WITHOUT_CAPTURE)
                || options.judges(Invariant.CAPTURE_NOT_REFUNDED);
        boolean stock = options.judges(Invariant.STOCK_MISMATCH);
        boolean reservations = stock || options.judges(Invariant.RESERVED_NOT_LIVE);
        List<Ledgers.Charge> charges = money ? ledgers.charges() : List.of();
        List<Ledgers.Reservation> held = reservations ? ledgers.reservations() : List.of();
        Map<UUID, ProductDatabase.Order> orders = money || reservations ? db.orders() : Map.of();
        Map<String, Ledgers.Stock> stocks = new LinkedHashMap<>();
        Map<String, Long> confirmed = Map.of();
        Set<String> moving = Set.of();
        if (stock) {
            Set<String> skus = new LinkedHashSet<>(db.skus(options.orders()));
            held.stream().filter(r -> options.inScope(r.orderId()))
                    .forEach(r -> r.lines().forEach(l -> skus.add(l.sku())));
            for (String sku : skus) {
                stocks.put(sku, ledgers.stock(sku));
            }
            confirmed = db.confirmedQuantities(skus);
            moving = Snapshot.moving(held, ledgers.reservations(), orders, db.orders());
        }
        return new Snapshot(charges, held, orders, stocks, confirmed, moving,
                options.judges(Invariant.OUTBOX_STUCK) ? db.stuckOutbox(options.outboxAge()) : List.of(),
                options.judges(Invariant.OPEN_INCIDENTS) ? db.incidents() : List.of(),
                options.judges(Invariant.OPEN_FINDINGS) ? db.openFindings() : List.of());
    }

    private static void pause(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unreachable("interrupted while checking", e);
        }
    }
}
