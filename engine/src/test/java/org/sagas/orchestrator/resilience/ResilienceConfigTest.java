package org.sagas.orchestrator.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ResilienceConfigTest {

    @Test
    void shouldMatchDesignForInventoryDefaults() {
        ResilienceConfig config = ResilienceConfig.inventoryDefaults();

        assertThat(config.dependency()).isEqualTo("inventory");
        assertThat(config.timeout().attemptTimeout()).isEqualTo(Duration.ofMillis(300));
        assertThat(config.timeout().minimumUsefulBudget()).isEqualTo(Duration.ofMillis(20));
        RetryConfig retry = config.retry().orElseThrow();
        assertThat(retry.maxAttempts()).isEqualTo(3);
        assertThat(retry.backoffBase()).isEqualTo(Duration.ofMillis(50));
        assertThat(retry.backoffCap()).isEqualTo(Duration.ofMillis(200));
        assertThat(retry.budgetRatio()).isEqualTo(0.1);
        assertThat(retry.budgetInitial()).isEqualTo(10);
        BreakerConfig breaker = config.breaker().orElseThrow();
        assertThat(breaker.failureRateThresholdPercent()).isEqualTo(50);
        assertThat(breaker.minimumCalls()).isEqualTo(20);
        assertThat(breaker.failureWindow()).isEqualTo(Duration.ofSeconds(10));
        assertThat(breaker.openDuration()).isEqualTo(Duration.ofSeconds(10));
        assertThat(breaker.halfOpenTrials()).isEqualTo(3);
        BulkheadConfig bulkhead = config.bulkhead().orElseThrow();
        assertThat(bulkhead.permits()).isEqualTo(24);
        assertThat(bulkhead.maxWait()).isEqualTo(Duration.ofMillis(50));
    }

    @Test
    void shouldMatchDesignForPaymentDefaults() {
        ResilienceConfig config = ResilienceConfig.paymentDefaults();

        assertThat(config.dependency()).isEqualTo("payment");
        assertThat(config.timeout().attemptTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(config.timeout().minimumUsefulBudget()).isEqualTo(Duration.ofMillis(50));
        RetryConfig retry = config.retry().orElseThrow();
        assertThat(retry.maxAttempts()).isEqualTo(3);
        assertThat(retry.backoffBase()).isEqualTo(Duration.ofMillis(200));
        assertThat(retry.backoffCap()).isEqualTo(Duration.ofSeconds(2));
        assertThat(retry.budgetRatio()).isEqualTo(0.1);
        assertThat(retry.budgetInitial()).isEqualTo(10);
        BreakerConfig breaker = config.breaker().orElseThrow();
        assertThat(breaker.failureRateThresholdPercent()).isEqualTo(50);
        assertThat(breaker.minimumCalls()).isEqualTo(10);
        assertThat(breaker.failureWindow()).isEqualTo(Duration.ofSeconds(10));
        assertThat(breaker.openDuration()).isEqualTo(Duration.ofSeconds(10));
        assertThat(breaker.halfOpenTrials()).isEqualTo(3);
        BulkheadConfig bulkhead = config.bulkhead().orElseThrow();
        assertThat(bulkhead.permits()).isEqualTo(16);
        assertThat(bulkhead.maxWait()).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void shouldBuildReducedStacksLayerByLayer() {
        // Given the defaults
        ResilienceConfig defaults = ResilienceConfig.inventoryDefaults();

        // When layers are switched off one by one
        ResilienceConfig noBreaker = defaults.withoutBreaker();
        ResilienceConfig bare = noBreaker.withoutBulkhead().withoutRetries();

        // Then only those layers are off and everything else is kept
        assertThat(noBreaker.breaker()).isEmpty();
        assertThat(noBreaker.bulkhead()).isPresent();
        assertThat(bare.bulkhead()).isEmpty();
        assertThat(bare.retry()).isEmpty();
        assertThat(bare.toBuilder()
                .breaker(defaults.breaker().orElseThrow())
                .bulkhead(defaults.bulkhead().orElseThrow())
                .retry(defaults.retry().orElseThrow())
                .build())
                .isEqualTo(defaults);
    }

    @Test
    void shouldRejectInvalidSettingsNamingThem() {
        ResilienceConfig inventory = ResilienceConfig.inventoryDefaults();
        RetryConfig.Builder retry = inventory.retry().orElseThrow().toBuilder();
        TimeoutConfig.Builder timeout = inventory.timeout().toBuilder();
        BreakerConfig.Builder breaker = inventory.breaker().orElseThrow().toBuilder();
        BulkheadConfig.Builder bulkhead = inventory.bulkhead().orElseThrow().toBuilder();

        assertThatThrownBy(() -> retry.maxAttempts(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxAttempts");
        assertThatThrownBy(() -> timeout.attemptTimeout(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("attemptTimeout");
        assertThatThrownBy(() -> inventory.toBuilder().dependency(" ").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dependency");
        assertThatThrownBy(() -> breaker.failureWindow(Duration.ofMillis(5)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("failureWindow");
        assertThatThrownBy(() -> inventory.timeout().toBuilder().minimumUsefulBudget(Duration.ofSeconds(1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("minimumUsefulBudget");
        assertThatThrownBy(() -> bulkhead.maxWait(null).build())
                .isInstanceOf(NullPointerException.class).hasMessageContaining("maxWait");
    }

    @Test
    void shouldNameFieldAndRangeWhenValueOutOfRange() {
        BreakerConfig.Builder breaker = ResilienceConfig.inventoryDefaults().breaker().orElseThrow().toBuilder();
        RetryConfig.Builder retry = ResilienceConfig.inventoryDefaults().retry().orElseThrow().toBuilder();

        assertThatThrownBy(() -> breaker.failureRateThresholdPercent(150).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("failureRateThresholdPercent must be from 1 to 100, was 150");
        assertThatThrownBy(() -> breaker.failureRateThresholdPercent(50).failureWindow(Duration.ofMillis(5)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("failureWindow must be from 10 ms to 3600000 ms, was 5 ms");
        assertThatThrownBy(() -> retry.budgetRatio(1.5).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("budgetRatio must be from 0.0 to 1.0, was 1.5");
    }

    @Test
    void shouldKeepCrossFieldChecks() {
        ResilienceConfig inventory = ResilienceConfig.inventoryDefaults();

        // A backoff cap below its base, and a minimum useful budget no attempt could ever have
        assertThatThrownBy(() -> inventory.retry().orElseThrow().toBuilder().backoffCap(Duration.ofMillis(10)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("backoffCap must not be below backoffBase (50 ms), was 10 ms");
        assertThatThrownBy(() -> inventory.timeout().toBuilder().minimumUsefulBudget(Duration.ofMillis(301)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("minimumUsefulBudget must not exceed attemptTimeout (300 ms), was 301 ms");
    }

    @Test
    void shouldRequireEveryValueBecauseBuildersHaveNoDefaults() {
        assertThatThrownBy(() -> TimeoutConfig.builder().attemptTimeout(Duration.ofMillis(300)).build())
                .isInstanceOf(NullPointerException.class).hasMessage("minimumUsefulBudget must be set");
        assertThatThrownBy(() -> RetryConfig.builder().maxAttempts(3).build())
                .isInstanceOf(NullPointerException.class).hasMessageContaining("must be set");
        assertThatThrownBy(() -> BreakerConfig.builder().minimumCalls(3).build())
                .isInstanceOf(NullPointerException.class).hasMessage("failureRateThresholdPercent must be set");
        assertThatThrownBy(() -> BulkheadConfig.builder().maxWait(Duration.ZERO).build())
                .isInstanceOf(NullPointerException.class).hasMessage("permits must be set");
        assertThatThrownBy(() -> ResilienceConfig.builder("inventory").build())
                .isInstanceOf(NullPointerException.class).hasMessage("timeout must be set");
    }

    @Test
    void shouldBuildStackWithOnlyTimeoutWhenNoOtherLayerIsSet() {
        TimeoutConfig timeout = TimeoutConfig.builder()
                .attemptTimeout(Duration.ofMillis(100))
                .minimumUsefulBudget(Duration.ofMillis(10))
                .build();

        ResilienceConfig config = ResilienceConfig.builder("ledger").timeout(timeout).build();

        assertThat(config.timeout()).isEqualTo(timeout);
        assertThat(config.retry()).isEmpty();
        assertThat(config.breaker()).isEmpty();
        assertThat(config.bulkhead()).isEmpty();
    }
}
