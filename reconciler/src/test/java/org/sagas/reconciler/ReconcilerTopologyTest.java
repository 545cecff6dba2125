package org.sagas.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.orchestrator.ordering.OrderMessages;

/** Each kind of finding on the topology itself: grace periods, facts out of order, duplicates. */
class ReconcilerTopologyTest {
    private static final Duration SECOND = Duration.ofSeconds(1);
    private final TopologyFixture t = new TopologyFixture();

    @AfterEach
    void close() {
        t.close();
    }

    // ---- CHARGED_NOT_CONFIRMED -----------------------------------------------------------------

    @Test
    void shouldFindACaptureOfACancelledOrderOnceTheGraceHasPassedAndResolveItWhenTheRefundIsSeen() {
        // Given a cancelled order whose charge the provider captured
        UUID order = UUID.randomUUID();
        t.status(order, "AWAITING_PAYMENT", 1, 2500);
        t.status(order, "CANCELLED", 2, 2500);
        t.charge(order.toString(), order + ":charge", 2500, "CAPTURED");
        // When less than the grace passes, nothing; when it has passed, one finding
        t.advance(TopologyFixture.GRACE.minus(SECOND.multipliedBy(2)));
        assertThat(t.findings()).isEmpty();
        t.advance(SECOND.multipliedBy(3));
        List<Finding> opened = t.findings();
        // Then it asks for a refund under the charge key's refund key
        assertThat(opened).singleElement().satisfies(f -> {
            assertThat(f.kind()).isEqualTo(FindingKind.CHARGED_NOT_CONFIRMED);
            assertThat(f.state()).isEqualTo(FindingState.OPEN);
            assertThat(f.orderId()).isEqualTo(order.toString());
            assertThat(f.subject()).isEqualTo(order + ":charge");
            assertThat(f.action()).isEqualTo(RepairAction.REFUND);
            assertThat(f.repairKey()).isEqualTo(order + ":charge:refund");
            assertThat(f.detail()).contains("CANCELLED");
        });
        // And when the refund shows in the ledger, the same finding is resolved
        t.charge(order.toString(), order + ":charge", 2500, "REFUNDED");
        assertThat(t.findings()).singleElement().satisfies(f -> {
            assertThat(f.findingId()).isEqualTo(opened.get(0).findingId());
            assertThat(f.state()).isEqualTo(FindingState.RESOLVED);
            assertThat(f.resolvedAt()).isNotNull();
            assertThat(f.detail()).contains("refund seen");
        });
    }

    @Test
    void shouldWaitLongerForTheOrderOfAChargeItHasNeverHeardOfAndStayQuietWhenTheOrderTurnsUpConfirmed() {
        // Given a capture in the ledger before any event of its order (the ledger is ahead)
        UUID late = UUID.randomUUID();
        t.charge(late.toString(), late + ":charge", 900, "CAPTURED");
        t.advance(TopologyFixture.GRACE.plus(SECOND.multipliedBy(5)));
        // When the order's events arrive, out of order (confirmed first), within the longer grace
        t.status(late, "CONFIRMED", 3, 900);
        t.status(late, "AWAITING_PAYMENT", 1, 900);
        t.advance(TopologyFixture.UNKNOWN_GRACE);
        // Then there is no finding: the capture confirmed its order
        assertThat(t.findings()).isEmpty();
    }

    @Test
    void shouldFindAChargeForAnOrderThatNeverExistsAfterTheUnknownOrderGrace() {
        // Given a charge made directly at the provider for an order nobody placed
        t.charge("no-such-order", "direct-charge-1", 4200, "CAPTURED");
        // When the ordinary grace passes, nothing yet; after the unknown-order grace, a finding
        t.advance(TopologyFixture.GRACE.plus(SECOND.multipliedBy(2)));
        assertThat(t.findings()).isEmpty();
        t.advance(TopologyFixture.UNKNOWN_GRACE);
        assertThat(t.findings()).singleElement().satisfies(f -> {
            assertThat(f.kind()).isEqualTo(FindingKind.CHARGED_NOT_CONFIRMED);
            assertThat(f.repairKey()).isEqualTo("direct-charge-1:refund");
            assertThat(f.detail()).contains("never announced");
        });
    }

    @Test
    void shouldFindASecondCaptureForAConfirmedOrder() {
        UUID order = UUID.randomUUID();
        t.command(order, 1000);
        t.reply(order, OrderMessages.PAYMENT_CAPTURED);
        t.status(order, "CONFIRMED", 3, 1000);
        t.charge(order.toString(), order + ":charge", 1000, "CAPTURED");
        t.charge(order.toString(), order + ":charge-again", 1000, "CAPTURED");
        t.advance(TopologyFixture.GRACE.plus(SECOND.multipliedBy(2)));
        assertThat(t.findings()).singleElement().satisfies(f -> {
            assertThat(f.kind()).isEqualTo(FindingKind.CHARGED_NOT_CONFIRMED);
            assertThat(f.subject()).isEqualTo(order + ":charge-again");
            assertThat(f.detail()).contains("second capture");
        });
    }

    @Test
    void shouldMeasureTheGraceInRecordTimeWhileABacklogIsWorkedOffSoThatLateEvidenceStillCounts() {
        // Given a backlog ten minutes old, worked off slowly: an order confirmed, then for longer than
        // the grace (wall clock) other orders' records, written a tenth of a second apart
        Duration behind = Duration.ofMinutes(10);
        t.replaying(behind);
        UUID order = UUID.randomUUID();
        t.status(order, "CONFIRMED", 3, 500);
        for (int i = 0; i < TopologyFixture.GRACE.toSeconds() + 5; i++) {
            t.advance(SECOND);
            behind = behind.plus(SECOND).minusMillis(100);
            t.replaying(behind);
            t.status(UUID.randomUUID(), "AWAITING_PAYMENT", 1, 100);
        }
        // When its capture, published right after it, is finally reached
        t.charge(order.toString(), order + ":charge", 500, "CAPTURED");
        t.replaying(Duration.ZERO);
        t.advance(TopologyFixture.GRACE.plus(SECOND.multipliedBy(3)));
        // Then no finding: by the records' own time the capture came within the grace
        assertThat(t.findings()).isEmpty();
    }

    @Test
    void shouldWaitForTheSlowestInputBeforeTakingACaptureForOneOfAnUnknownOrder() {
        // Given a backlog ten minutes old: order events read up to a point, and a capture whose
        // order's events have not been fetched yet
        t.replaying(Duration.ofMinutes(10));
        t.status(UUID.randomUUID(), "AWAITING_PAYMENT", 1, 100);
        UUID order = UUID.randomUUID();
        t.charge(order.toString(), order + ":charge", 900, "CAPTURED");
        // When the ledger topic is read further than the unknown-order grace, while order events stall
        for (int i = 1; i <= 15; i++) {
            t.replaying(Duration.ofMinutes(10).minusSeconds(10L * i));
            t.reservation(UUID.randomUUID().toString(), "other-" + i, "RELEASED");
        }
        t.replaying(Duration.ZERO);
        t.advance(SECOND.multipliedBy(2));
        // And the order's events come at last
        t.status(order, "CONFIRMED", 3, 900);
        t.advance(TopologyFixture.UNKNOWN_GRACE);
        // Then no finding: the order events' own clock never reached the capture's grace
        assertThat(t.findings()).isEmpty();
    }

    @Test
    void shouldHoldSuspicionsWhileAnInputIsStillBehindOnTheBroker() {
        // Given a cancelled order's capture, while the ledger's partition still has records to fetch
        UUID order = UUID.randomUUID();
        t.status(order, "CANCELLED", 2, 100);
        t.charge(order.toString(), order + ":charge", 100, "CAPTURED");
        t.lags.put(Topics.LEDGER_CHARGES, 500L);
        // When far more than the grace passes on the wall clock, nothing (the refund may be in those records)
        t.advance(TopologyFixture.GRACE.multipliedBy(3));
        assertThat(t.findings()).isEmpty();
        // Then once the ledger is caught up, the clock moves on and the finding opens
        t.lags.put(Topics.LEDGER_CHARGES, 0L);
        t.advance(SECOND.multipliedBy(2));
        assertThat(t.findings()).singleElement().extracting(Finding::kind).isEqualTo(FindingKind.CHARGED_NOT_CONFIRMED);
    }

    // ---- CONFIRMED_NOT_CHARGED ------------------------------------------------------------------

    @Test
    void shouldFindAConfirmedOrderWithoutCaptureUnlessTheCaptureArrivesWithinTheGrace() {
        // Given two confirmed orders; one's capture reaches the ledger late but within the grace
        UUID uncharged = UUID.randomUUID();
        UUID lateCapture = UUID.randomUUID();
        t.status(uncharged, "CONFIRMED", 3, 700);
        t.status(lateCapture, "CONFIRMED", 3, 800);
        t.advance(TopologyFixture.GRACE.minus(SECOND.multipliedBy(3)));
        t.charge(lateCapture.toString(), lateCapture + ":charge", 800, "CAPTURED");
        t.advance(SECOND.multipliedBy(5));
        // Then only the order without any capture is found
        assertThat(t.findings()).singleElement().satisfies(f -> {
            assertThat(f.kind()).isEqualTo(FindingKind.CONFIRMED_NOT_CHARGED);
            assertThat(f.orderId()).isEqualTo(uncharged.toString());
            assertThat(f.action()).isEqualTo(RepairAction.NONE);
        });
        // And a capture that arrives at last resolves it
        t.charge(uncharged.toString(), uncharged + ":charge", 700, "CAPTURED");
        assertThat(t.findings()).singleElement().extracting(Finding::state).isEqualTo(FindingState.RESOLVED);
    }

    @Test
    void shouldFindAConfirmedOrderWhoseChargeWasRefundedBehindItsBack() {
        UUID order = UUID.randomUUID();
        t.status(order, "CONFIRMED", 3, 700);
        t.charge(order.toString(), order + ":charge", 700, "CAPTURED");
        t.charge(order.toString(), order + ":charge", 700, "REFUNDED");
        t.advance(TopologyFixture.GRACE.plus(SECOND.multipliedBy(2)));
        assertThat(t.findings()).singleElement().satisfies(f -> {
            assertThat(f.kind()).isEqualTo(FindingKind.CONFIRMED_NOT_CHARGED);
            assertThat(f.detail()).contains("REFUNDED");
        });
    }

    // ---- CHARGE_WITHOUT_REPLY -------------------------------------------------------------------

    @Test
    void shouldFindAChargeCommandWithoutReplyAfterTheWindowAndResolveItWhenTheReplyComes() {
        UUID silent = UUID.randomUUID();
        UUID replyFirst = UUID.randomUUID();
        t.status(silent, "AWAITING_PAYMENT", 1, 500);
        t.command(silent, 500);
        // A reply that overtakes its command (two topics, two partitions' worth of lag) still counts
        t.reply(replyFirst, OrderMessages.PAYMENT_CAPTURED);
        t.command(replyFirst, 500);
        t.advance(TopologyFixture.REPLY_WINDOW.minus(SECOND.multipliedBy(2)));
        assertThat(t.findings()).isEmpty();
        t.advance(SECOND.multipliedBy(3));
        assertThat(t.findings()).singleElement().satisfies(f -> {
            assertThat(f.kind()).isEqualTo(FindingKind.CHARGE_WITHOUT_REPLY);
            assertThat(f.orderId()).isEqualTo(silent.toString());
        });
        t.reply(silent, OrderMessages.PAYMENT_DECLINED);
        assertThat(t.findings()).singleElement().satisfies(f -> {
            assertThat(f.state()).isEqualTo(FindingState.RESOLVED);
            assertThat(f.detail()).contains("payment reply seen");
        });
    }

    @Test
    void shouldNotFindAChargeWithoutReplyForAnOrderCompensatingAfterAReplyHandedOverInProcess() {
        // Given an order whose payment reply went straight to its saga (no payments.events record),
        // declined, and whose compensation now waits on inventory longer than the reply window
        UUID compensating = UUID.randomUUID();
        t.status(compensating, "AWAITING_PAYMENT", 1, 500);
        t.command(compensating, 500);
        t.status(compensating, "COMPENSATING", 2, 500);
        t.advance(TopologyFixture.REPLY_WINDOW.plus(SECOND.multipliedBy(3)));
        assertThat(t.findings()).isEmpty();
    }

    // ---- RESERVED_NOT_ORDERED -------------------------------------------------------------------

    @Test
    void shouldFindStockHeldForARejectedOrderReleaseItUnderTheOrdersReleaseKeyAndResolveOnTheRelease() {
        UUID order = UUID.randomUUID();
        t.status(order, "REJECTED", 1, 300);
        t.reservation(order.toString(), order + ":reserve", "RESERVED");
        t.advance(TopologyFixture.GRACE.plus(SECOND.multipliedBy(2)));
        assertThat(t.findings()).singleElement().satisfies(f -> {
            assertThat(f.kind()).isEqualTo(FindingKind.RESERVED_NOT_ORDERED);
            assertThat(f.action()).isEqualTo(RepairAction.RELEASE);
            assertThat(f.repairKey()).isEqualTo(order + ":release");
        });
        t.reservation(order.toString(), order + ":reserve", "RELEASED");
        assertThat(t.findings()).singleElement().satisfies(f -> {
            assertThat(f.state()).isEqualTo(FindingState.RESOLVED);
            assertThat(f.detail()).contains("release seen");
        });
    }

    @Test
    void shouldLeaveStockHeldForALiveOrderAlone() {
        UUID order = UUID.randomUUID();
        t.status(order, "AWAITING_PAYMENT", 1, 300);
        t.reservation(order.toString(), order + ":reserve", "RESERVED");
        t.advance(TopologyFixture.UNKNOWN_GRACE.plus(SECOND.multipliedBy(2)));
        assertThat(t.findings()).isEmpty();
    }

    // ---- AMOUNT_MISMATCH ------------------------------------------------------------------------

    @Test
    void shouldFindACaptureOfAnotherAmountThanTheOrdersTotal() {
        UUID order = UUID.randomUUID();
        t.status(order, "AWAITING_PAYMENT", 1, 2500);
        t.charge(order.toString(), order + ":charge", 2400, "CAPTURED");
        t.status(order, "CONFIRMED", 3, 2500);
        t.advance(TopologyFixture.GRACE.plus(SECOND.multipliedBy(2)));
        assertThat(t.findings()).singleElement().satisfies(f -> {
            assertThat(f.kind()).isEqualTo(FindingKind.AMOUNT_MISMATCH);
            assertThat(f.detail()).contains("2400").contains("2500");
        });
    }

    // ---- duplicates, stale facts, the published record ------------------------------------------

    @Test
    void shouldLearnNothingFromAFactReplayedAfterTheOrderEnded() {
        // Given an order that was awaiting payment, was sent its charge, and was cancelled
        UUID order = UUID.randomUUID();
        String awaiting = UUID.randomUUID().toString();
        t.status(order, "AWAITING_PAYMENT", 1, 600, awaiting);
        t.command(order, 600);
        t.status(order, "CANCELLED", 4, 600);
        // When its earlier facts come again (a reconciler restarted at least once replays its input)
        t.status(order, "AWAITING_PAYMENT", 1, 600, awaiting);
        t.command(order, 600);
        t.advance(TopologyFixture.REPLY_WINDOW.plus(SECOND.multipliedBy(6)));
        // Then the order stays ended: no charge is awaited for it, so no finding
        assertThat(t.findings()).isEmpty();
    }

    @Test
    void shouldOpenOneFindingWhenEveryFactArrivesTwice() {
        UUID order = UUID.randomUUID();
        String id = UUID.randomUUID().toString();
        t.status(order, "CANCELLED", 2, 100, id);
        t.status(order, "CANCELLED", 2, 100, id);
        String cursor = t.charge(order.toString(), order + ":charge", 100, "CAPTURED");
        t.charge(order.toString(), order + ":charge", 100, "CAPTURED", cursor);
        t.advance(TopologyFixture.GRACE.plus(SECOND.multipliedBy(2)));
        t.charge(order.toString(), order + ":charge", 100, "CAPTURED", cursor);
        t.advance(TopologyFixture.GRACE.plus(SECOND.multipliedBy(2)));
        assertThat(t.findings()).hasSize(1);
    }

    @Test
    void shouldIgnoreAnOlderLedgerStateArrivingAfterANewerOne() {
        // Given a refunded charge of a cancelled order, whose earlier CAPTURED state arrives last
        UUID order = UUID.randomUUID();
        t.status(order, "CANCELLED", 2, 100);
        t.charge(order.toString(), order + ":charge", 100, "REFUNDED", "8.20");
        t.charge(order.toString(), order + ":charge", 100, "CAPTURED", "8.10");
        t.advance(TopologyFixture.GRACE.plus(SECOND.multipliedBy(2)));
        // Then nothing is found: the ledger's latest word is the refund
        assertThat(t.findings()).isEmpty();
    }

    @Test
    void shouldPublishFindingsKeyedByOrderWithAMessageIdThatIsTheSameForTheSameFindingAndState() {
        UUID order = UUID.randomUUID();
        t.status(order, "REJECTED", 1, 300);
        t.reservation(order.toString(), order + ":reserve", "RESERVED");
        t.advance(TopologyFixture.GRACE.plus(SECOND.multipliedBy(2)));
        TestRecord<String, Finding> record = t.findingRecords().get(0);
        assertThat(record.key()).isEqualTo(order.toString());
        String messageId = new String(record.headers().lastHeader(Topics.MESSAGE_ID).value(), StandardCharsets.UTF_8);
        assertThat(messageId).isEqualTo(record.value().messageId().toString());
        assertThat(record.value().findingId()).isEqualTo(Finding.idOf(FindingKind.RESERVED_NOT_ORDERED,
                order.toString(), order + ":reserve"));
    }

    @Test
    void shouldSkipARecordItCannotReadAndGoOn() {
        UUID order = UUID.randomUUID();
        t.charge(order.toString(), order + ":charge", 100, "CAPTURED", "not-a-cursor");
        t.status(order, "CANCELLED", 2, 100);
        t.charge(order.toString(), order + ":charge", 100, "CAPTURED");
        t.advance(TopologyFixture.GRACE.plus(SECOND.multipliedBy(2)));
        assertThat(t.findings()).singleElement().extracting(Finding::kind).isEqualTo(FindingKind.CHARGED_NOT_CONFIRMED);
    }
}
