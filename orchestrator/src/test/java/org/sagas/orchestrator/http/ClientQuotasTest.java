package org.sagas.orchestrator.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ClientQuotasTest {
    private final AtomicLong now = new AtomicLong();
    private final ClientQuotas quotas = new ClientQuotas(2, 3, now::get);

    @Test
    void shouldAllowABurstThenSayWhenTheNextTokenComes() {
        for (int i = 0; i < 3; i++) {
            assertThat(quotas.tryTake("a")).isZero();
        }

        assertThat(quotas.tryTake("a")).isEqualTo(1);
    }

    @Test
    void shouldRefillAtTheRate() {
        for (int i = 0; i < 3; i++) {
            quotas.tryTake("a");
        }

        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(500)); // 2 per second: one token

        assertThat(quotas.tryTake("a")).isZero();
        assertThat(quotas.tryTake("a")).isEqualTo(1);
    }

    @Test
    void shouldKeepEachClientsBucketApart() {
        for (int i = 0; i < 3; i++) {
            quotas.tryTake("greedy");
        }

        assertThat(quotas.tryTake("greedy")).isPositive();
        assertThat(quotas.tryTake("modest")).isZero();
    }

    @Test
    void shouldDropFullBucketsWhenCrowdedSoManyNamesCannotExhaustMemory() {
        for (int i = 0; i <= ClientQuotas.SWEEP_ABOVE; i++) {
            quotas.tryTake("customer-" + i);
        }
        now.addAndGet(TimeUnit.SECONDS.toNanos(5)); // every bucket full again

        quotas.tryTake("one-more");

        assertThat(quotas.size()).isLessThanOrEqualTo(2);
    }

    @Test
    void shouldGiveAClientWithItsOwnLimitsItsRateAndBurstWhileOthersKeepTheDefaults() {
        ApiKeys.Limits shop = new ApiKeys.Limits(OptionalInt.of(20), OptionalInt.of(10), OptionalInt.empty());
        for (int i = 0; i < 10; i++) {
            assertThat(quotas.tryTake("shop", shop)).isZero();
        }
        for (int i = 0; i < 3; i++) {
            quotas.tryTake("default");
        }

        assertThat(quotas.tryTake("shop", shop)).isEqualTo(1);
        assertThat(quotas.tryTake("default")).isEqualTo(1);
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(100)); // 20 per second: two tokens; 2 per second: none
        assertThat(quotas.tryTake("shop", shop)).isZero();
        assertThat(quotas.tryTake("shop", shop)).isZero();
        assertThat(quotas.tryTake("default")).isPositive();
    }

    @Test
    void shouldLimitAClientWithItsOwnRateWhenTheDefaultIsNoLimit() {
        ClientQuotas noDefault = new ClientQuotas(0, 3, now::get);
        ApiKeys.Limits limited = new ApiKeys.Limits(OptionalInt.of(1), OptionalInt.empty(), OptionalInt.empty());
        ApiKeys.Limits free = new ApiKeys.Limits(OptionalInt.of(0), OptionalInt.of(1), OptionalInt.empty());
        for (int i = 0; i < 3; i++) {
            assertThat(noDefault.tryTake("limited", limited)).isZero();
        }

        assertThat(noDefault.tryTake("limited", limited)).isEqualTo(1);
        for (int i = 0; i < 100; i++) {
            assertThat(noDefault.tryTake("free", free)).isZero();
            assertThat(noDefault.tryTake("default")).isZero();
        }
    }

    @Test
    void shouldNeverRefuseWhenUnlimited() {
        ClientQuotas unlimited = ClientQuotas.unlimited();
        for (int i = 0; i < 1000; i++) {
            assertThat(unlimited.tryTake("a")).isZero();
        }
    }
}
