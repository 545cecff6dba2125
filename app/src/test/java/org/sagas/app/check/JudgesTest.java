package org.sagas.app.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.ordering.OrderStatus;

/** The judges on hand-made snapshots: the arithmetic of the stock and the order of events. */
class JudgesTest {
    private static final CheckOptions ALL = CheckOptions.defaults();
    private final UUID confirmed = UUID.randomUUID();
    private final UUID cancelled = UUID.randomUUID();
    private final UUID live = UUID.randomUUID();

    @Test
    void shouldAddUpStockFromWhatWasStockedLessConfirmedLessHeldByLiveOrders() {
        // 10 stocked: 2 confirmed, 3 held by a live order, a cancelled order's reservation released
        Snapshot s = snapshot(List.of(held(confirmed, 2), held(live, 3), released(cancelled, 1)), 5, 10, 2);

        assertThat(Judges.stock(s).why()).isEmpty();
        assertThat(Judges.reservedNotLive(s, ALL).why()).isEmpty();
    }

    @Test
    void shouldCountACancelledOrdersHeldReservationAgainstTheStockOnlyWhenItTookTheStock() {
        // The cancelled order holds 1 that it took: the stock is short by 1, and the order is named
        Snapshot took = snapshot(List.of(held(confirmed, 2), held(cancelled, 1)), 7, 10, 2);
        // Its reservation says RESERVED but the stock came back: only the reservation is wrong
        Snapshot flagged = snapshot(List.of(held(confirmed, 2), held(cancelled, 1)), 8, 10, 2);

        assertThat(Judges.stock(took).why()).containsOnlyKeys("SKU-1");
        assertThat(Judges.stock(took).why().get("SKU-1")).isEqualTo(
                "stocked 10 - confirmed 2 - held 0 = 8, available 7");
        assertThat(Judges.reservedNotLive(took, ALL).why()).containsOnlyKeys(cancelled.toString());
        assertThat(Judges.stock(flagged).why()).isEmpty();
    }

    @Test
    void shouldNotJudgeTheStockOfASkuThatMovedWhileItWasRead() {
        // A live order reserved 1 after the reservations were read and before the stock was: the
        // stock is 1 short of what the pass saw held
        Snapshot read = snapshot(List.of(held(confirmed, 2)), 7, 10, 2);
        Snapshot moving = new Snapshot(List.of(), read.reservations(), read.orders(), read.stock(), read.confirmed(),
                Set.of("SKU-1"), List.of(), List.of(), List.of());

        assertThat(Judges.stock(read).why()).containsOnlyKeys("SKU-1");
        assertThat(Judges.stock(moving).why()).isEmpty();
        assertThat(Judges.stock(moving).summary()).contains("1 moving while read not judged");
    }

    @Test
    void shouldFindTheSkusOfReservationsThatAppearedOrChangedOrWhoseOrderChangedBetweenTwoReads() {
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        UUID confirming = UUID.randomUUID();
        Ledgers.Reservation quiet = line(confirmed, "RESERVED", "QUIET");
        Ledgers.Reservation releasing = line(cancelled, "RESERVED", "RELEASING");
        Ledgers.Reservation ending = line(confirming, "RESERVED", "ENDING");
        Ledgers.Reservation arriving = line(live, "RESERVED", "ARRIVING");
        Map<UUID, ProductDatabase.Order> before = Map.of(confirmed, order(confirmed, OrderStatus.CONFIRMED, t),
                cancelled, order(cancelled, OrderStatus.COMPENSATING, t),
                confirming, order(confirming, OrderStatus.AWAITING_PAYMENT, t));
        Map<UUID, ProductDatabase.Order> after = Map.of(confirmed, order(confirmed, OrderStatus.CONFIRMED, t),
                cancelled, order(cancelled, OrderStatus.COMPENSATING, t),
                confirming, order(confirming, OrderStatus.CONFIRMED, t),
                live, order(live, OrderStatus.AWAITING_PAYMENT, t));

        assertThat(Snapshot.moving(List.of(quiet, releasing, ending), List.of(quiet,
                line(cancelled, "RELEASED", "RELEASING"), ending, arriving), before, after))
                .containsExactly("ARRIVING", "ENDING", "RELEASING");
        assertThat(Snapshot.moving(List.of(quiet), List.of(quiet), before, before)).isEmpty();
    }

    @Test
    void shouldNotJudgeStockAnInventoryDoesNotSayItWasStockedWith() {
        Snapshot s = new Snapshot(List.of(), List.of(), orders(),
                Map.of("SKU-1", new Ledgers.Stock("SKU-1", 5, 0, OptionalLong.empty())), Map.of(), Set.of(), List.of(),
                List.of(), List.of());

        assertThat(Judges.stock(s).judged()).isFalse();
        assertThat(Judges.stock(s).verdict(Invariant.STOCK_MISMATCH, 10).passed()).isTrue();
    }

    @Test
    void shouldAcceptEventsInVersionOrderAndRedeliveriesOfTheSameMessage() {
        String id = confirmed.toString();
        List<OrderEvents.Event> events = List.of(event(id, "m1", "AWAITING_PAYMENT", 1, 0),
                event(id, "m2", "PAYMENT_UNKNOWN", 3, 1), event(id, "m1", "AWAITING_PAYMENT", 1, 2),
                event(id, "m3", "CONFIRMED", 4, 3));

        assertThat(Judges.events(events, ALL).why()).isEmpty();
    }

    @Test
    void shouldFindAnOlderVersionAndAMoveTheEngineCannotMake() {
        String late = confirmed.toString();
        String back = cancelled.toString();
        List<OrderEvents.Event> events = List.of(event(late, "a", "CONFIRMED", 3, 0),
                event(late, "b", "AWAITING_PAYMENT", 1, 1), event(back, "c", "COMPENSATING", 2, 2),
                event(back, "d", "CONFIRMED", 3, 3));

        Map<String, String> why = Judges.events(events, ALL).why();

        assertThat(why).containsOnlyKeys(late, back);
        assertThat(why.get(late)).startsWith("version 1 (AWAITING_PAYMENT) after 3 (CONFIRMED)");
        assertThat(why.get(back)).startsWith("CONFIRMED after COMPENSATING");
    }

    @Test
    void shouldAllowOnlyTheMovesTheEngineAllows() {
        assertThat(OrderMoves.allowed(OrderStatus.PENDING_CONFIRMATION, OrderStatus.AWAITING_PAYMENT)).isTrue();
        assertThat(OrderMoves.allowed(OrderStatus.AWAITING_PAYMENT, OrderStatus.COMPENSATING)).isTrue();
        assertThat(OrderMoves.allowed(OrderStatus.COMPENSATING, OrderStatus.CANCELLED)).isTrue();
        assertThat(OrderMoves.allowed(OrderStatus.COMPENSATING, OrderStatus.AWAITING_PAYMENT)).isFalse();
        for (OrderStatus end : List.of(OrderStatus.CONFIRMED, OrderStatus.CANCELLED, OrderStatus.REJECTED)) {
            for (OrderStatus next : OrderStatus.values()) {
                assertThat(OrderMoves.allowed(end, next)).as(end + " -> " + next).isFalse();
            }
        }
    }

    @Test
    void shouldReportOnlyOffencesASecondReadConfirms() {
        Offences first = new Offences(Map.of("a", "one", "b", "two"), "2", true);
        Offences again = new Offences(Map.of("b", "two again", "c", "three"), "2", true);

        assertThat(first.confirmedBy(again).why()).containsExactly(Map.entry("b", "two again"));
    }

    private Snapshot snapshot(List<Ledgers.Reservation> reservations, long available, long stocked, long confirmedQty) {
        return new Snapshot(List.of(), reservations, orders(),
                Map.of("SKU-1", new Ledgers.Stock("SKU-1", available, 0, OptionalLong.of(stocked))),
                Map.of("SKU-1", confirmedQty), Set.of(), List.of(), List.of(), List.of());
    }

    private Map<UUID, ProductDatabase.Order> orders() {
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        return Map.of(confirmed, new ProductDatabase.Order(confirmed, OrderStatus.CONFIRMED, t),
                cancelled, new ProductDatabase.Order(cancelled, OrderStatus.CANCELLED, t),
                live, new ProductDatabase.Order(live, OrderStatus.AWAITING_PAYMENT, t));
    }

    private static Ledgers.Reservation held(UUID order, long quantity) {
        return new Ledgers.Reservation(order + ":reserve", order.toString(), "RESERVED",
                List.of(new Ledgers.Line("SKU-1", quantity)));
    }

    private static Ledgers.Reservation line(UUID order, String status, String sku) {
        return new Ledgers.Reservation(order + ":reserve", order.toString(), status, List.of(new Ledgers.Line(sku, 1)));
    }

    private static ProductDatabase.Order order(UUID id, OrderStatus status, Instant t) {
        return new ProductDatabase.Order(id, status, t);
    }

    private static Ledgers.Reservation released(UUID order, long quantity) {
        return new Ledgers.Reservation(order + ":reserve", order.toString(), "RELEASED",
                List.of(new Ledgers.Line("SKU-1", quantity)));
    }

    private static OrderEvents.Event event(String order, String messageId, String status, int version, long offset) {
        return new OrderEvents.Event(order, messageId, status, version, 0, offset);
    }
}
