package org.sagas.orchestrator.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AuthThrottleTest {
    private final AtomicLong nanos = new AtomicLong();
    private final List<String> refused = new ArrayList<>();
    private final AuthThrottle throttle = new AuthThrottle(new FailureLimit(3, 6), refused::add, nanos::get);

    @Test
    void shouldRefuseAnAddressOnceItsFailuresAreSpentUntilOneComesBack() {
        // Given an address that failed as often as it may
        for (int i = 0; i < 3; i++) {
            assertThat(throttle.refusing("10.0.0.1")).isZero();
            assertThat(throttle.failed("10.0.0.1", AuthThrottle.Attempt.SIGN_IN)).isZero();
        }

        // Then its next attempt is refused unchecked, for the 10 s one failure takes to come back
        assertThat(throttle.refusing("10.0.0.1")).isEqualTo(10);
        nanos.addAndGet(TimeUnit.SECONDS.toNanos(10));
        assertThat(throttle.refusing("10.0.0.1")).isZero();
        // And each outcome was reported by its reason
        assertThat(refused).containsExactly("sign-in-refused", "sign-in-refused", "sign-in-refused",
                AuthThrottle.THROTTLED);
    }

    @Test
    void shouldKeepOtherAddressesAndSuccessesFree() {
        for (int i = 0; i < 5; i++) {
            throttle.failed("10.0.0.1", AuthThrottle.Attempt.API);
        }

        assertThat(throttle.refusing("10.0.0.2")).isZero();
        assertThat(refused).filteredOn(AuthThrottle.THROTTLED::equals).hasSize(2);
        assertThat(refused).filteredOn("unauthorized"::equals).hasSize(3);
    }
}
