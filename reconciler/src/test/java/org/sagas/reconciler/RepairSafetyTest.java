package org.sagas.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.ordering.OrderStatus;

/** The last look before a repair: only orders that are gone, or ended unserved, get money or stock back. */
class RepairSafetyTest {
    private final UUID order = UUID.randomUUID();

    @Test
    void shouldRefundWhenTheOrderDoesNotExistOrEndedUnserved() {
        Finding refund = finding(FindingKind.CHARGED_NOT_CONFIRMED, order + ":charge");
        assertThat(RepairSafety.refuses(refund, Optional.empty())).isEmpty();
        assertThat(RepairSafety.refuses(refund, Optional.of(OrderStatus.CANCELLED))).isEmpty();
        assertThat(RepairSafety.refuses(refund, Optional.of(OrderStatus.REJECTED))).isEmpty();
    }

    @Test
    void shouldNotRefundTheChargeThatPaidAConfirmedOrderNorAnythingOfALiveOrder() {
        Finding own = finding(FindingKind.CHARGED_NOT_CONFIRMED, order + ":charge");
        assertThat(RepairSafety.refuses(own, Optional.of(OrderStatus.CONFIRMED))).hasValueSatisfying(
                why -> assertThat(why).contains("CONFIRMED"));
        assertThat(RepairSafety.refuses(own, Optional.of(OrderStatus.AWAITING_PAYMENT))).isPresent();
        assertThat(RepairSafety.refuses(own, Optional.of(OrderStatus.PAYMENT_UNKNOWN))).isPresent();
    }

    @Test
    void shouldRefundASecondCaptureOfAConfirmedOrder() {
        Finding second = finding(FindingKind.CHARGED_NOT_CONFIRMED, order + ":charge:again");
        assertThat(RepairSafety.refuses(second, Optional.of(OrderStatus.CONFIRMED))).isEmpty();
    }

    @Test
    void shouldReleaseOnlyForAnOrderThatIsGoneOrEndedUnserved() {
        Finding release = finding(FindingKind.RESERVED_NOT_ORDERED, order + ":reserve");
        assertThat(RepairSafety.refuses(release, Optional.empty())).isEmpty();
        assertThat(RepairSafety.refuses(release, Optional.of(OrderStatus.CANCELLED))).isEmpty();
        assertThat(RepairSafety.refuses(release, Optional.of(OrderStatus.CONFIRMED))).isPresent();
        assertThat(RepairSafety.refuses(release, Optional.of(OrderStatus.PENDING_CONFIRMATION))).isPresent();
    }

    private Finding finding(FindingKind kind, String subject) {
        return new Finding(Finding.idOf(kind, order.toString(), subject), kind, FindingState.OPEN, order.toString(),
                subject, "test", Instant.now(), Instant.now(), null, kind.action(), subject + ":repair");
    }
}
