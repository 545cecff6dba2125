package org.sagas.orchestrator.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResilienceConfigTest {

    @Test
    void shouldMatchDesignForInventoryDefaults() {
        ResilienceConfig config = ResilienceConfig.inventoryDefaults();

        assertThat(config.dependency()).isEqualTo("inventory");
        assertThat(config.attemptTimeout()).isEqualTo(Duration.ofMillis(300));
        assertThat(config.maxAttempts()).isEqualTo(3);
        assertThat(config.backoffBase()).isEqualTo(Duration.ofMillis(50));
        assertThat(config.backoffCap()).isEqualTo(Duration.ofMillis(200));
        assertThat(config.failureRateThresholdPercent()).isEqualTo(50);
        assertThat(config.minimumCalls()).isEqualTo(20);
        assertThat(config.failureWindow()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.openDuration()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.halfOpenTrials()).isEqualTo(3);
        assertThat(config.bulkheadPermits()).isEqualTo(24);
        assertThat(config.bulkheadMaxWait()).isEqualTo(Duration.ofMillis(50));
        assertThat(config.retryBudgetRatio()).isEqualTo(0.1);
        assertThat(config.retryBudgetInitial()).isEqualTo(10);
        assertThat(config.minimumUsefulBudget()).isEqualTo(Duration.ofMillis(20));
        assertThat(config.breakerEnabled()).isTrue();
        assertThat(config.bulkheadEnabled()).isTrue();
        assertThat(config.retriesEnabled()).isTrue();
    }

    @Test
    void shouldMatchDesignForPaymentDefaults() {
        ResilienceConfig config = ResilienceConfig.paymentDefaults();

        assertThat(config.dependency()).isEqualTo("payment");
        assertThat(config.attemptTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(config.maxAttempts()).isEqualTo(3);
        assertThat(config.backoffBase()).isEqualTo(Duration.ofMillis(200));
        assertThat(config.backoffCap()).isEqualTo(Duration.ofSeconds(2));
        assertThat(config.failureRateThresholdPercent()).isEqualTo(50);
        assertThat(config.minimumCalls()).isEqualTo(10);
        assertThat(config.failureWindow()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.openDuration()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.halfOpenTrials()).isEqualTo(3);
        assertThat(config.bulkheadPermits()).isEqualTo(16);
        assertThat(config.bulkheadMaxWait()).isEqualTo(Duration.ofMillis(100));
        assertThat(config.minimumUsefulBudget()).isEqualTo(Duration.ofMillis(50));
    }

    @Test
    void shouldApplyEnvironmentOverrides() {
        // Given every documented variable set
        Map<String, String> env = Map.ofEntries(
                Map.entry("SAGA_INVENTORY_TIMEOUT_MS", "250"),
                Map.entry("SAGA_INVENTORY_MAX_ATTEMPTS", "2"),
                Map.entry("SAGA_INVENTORY_BREAKER_OPEN_MS", "5000"),
                Map.entry("SAGA_INVENTORY_BULKHEAD_PERMITS", "8"),
                Map.entry("SAGA_INVENTORY_BULKHEAD_WAIT_MS", "0"),
                Map.entry("SAGA_INVENTORY_BACKOFF_BASE_MS", "10"),
                Map.entry("SAGA_INVENTORY_BACKOFF_CAP_MS", "80"),
                Map.entry("SAGA_INVENTORY_BREAKER_MIN_CALLS", "5"),
                Map.entry("SAGA_INVENTORY_BREAKER_FAILURE_PERCENT", "75"),
                Map.entry("SAGA_INVENTORY_BREAKER_WINDOW_MS", "30000"),
                Map.entry("SAGA_INVENTORY_BREAKER_HALF_OPEN_TRIALS", "1"),
                Map.entry("SAGA_INVENTORY_RETRY_BUDGET_RATIO", " 0.2 "),
                Map.entry("SAGA_INVENTORY_RETRY_BUDGET_INITIAL", "4"),
                Map.entry("SAGA_INVENTORY_MIN_USEFUL_BUDGET_MS", "30"));

        // When read over the inventory defaults
        ResilienceConfig config = ResilienceConfig.fromEnvironment(
                "SAGA_INVENTORY", ResilienceConfig.inventoryDefaults(), env::get);

        // Then each one took effect
        assertThat(config.attemptTimeout()).isEqualTo(Duration.ofMillis(250));
        assertThat(config.maxAttempts()).isEqualTo(2);
        assertThat(config.openDuration()).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.bulkheadPermits()).isEqualTo(8);
        assertThat(config.bulkheadMaxWait()).isEqualTo(Duration.ZERO);
        assertThat(config.backoffBase()).isEqualTo(Duration.ofMillis(10));
        assertThat(config.backoffCap()).isEqualTo(Duration.ofMillis(80));
        assertThat(config.minimumCalls()).isEqualTo(5);
        assertThat(config.failureRateThresholdPercent()).isEqualTo(75);
        assertThat(config.failureWindow()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.halfOpenTrials()).isEqualTo(1);
        assertThat(config.retryBudgetRatio()).isEqualTo(0.2);
        assertThat(config.retryBudgetInitial()).isEqualTo(4);
        assertThat(config.minimumUsefulBudget()).isEqualTo(Duration.ofMillis(30));
        assertThat(config.dependency()).isEqualTo("inventory");
    }

    @Test
    void shouldKeepDefaultsWhenVariablesUnsetOrBlank() {
        // Given one blank variable and none of the others, plus another dependency's variable
        Map<String, String> env = Map.of("SAGA_PAYMENT_TIMEOUT_MS", " ", "SAGA_INVENTORY_TIMEOUT_MS", "1");

        // When read for payment
        ResilienceConfig config = ResilienceConfig.fromEnvironment(
                "SAGA_PAYMENT", ResilienceConfig.paymentDefaults(), env::get);

        // Then nothing changed
        assertThat(config).isEqualTo(ResilienceConfig.paymentDefaults());
    }

    @Test
    void shouldNameVariableWhenValueMalformed() {
        Map<String, String> env = Map.of("SAGA_INVENTORY_TIMEOUT_MS", "300ms");

        assertThatThrownBy(() -> ResilienceConfig.fromEnvironment(
                "SAGA_INVENTORY", ResilienceConfig.inventoryDefaults(), env::get))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SAGA_INVENTORY_TIMEOUT_MS")
                .hasMessageContaining("300ms");
    }

    @Test
    void shouldNameVariableWhenValueOutOfRange() {
        Map<String, String> percent = Map.of("SAGA_PAYMENT_BREAKER_FAILURE_PERCENT", "150");
        Map<String, String> ratio = Map.of("SAGA_PAYMENT_RETRY_BUDGET_RATIO", "abc");
        Map<String, String> permits = Map.of("SAGA_PAYMENT_BULKHEAD_PERMITS", "0");

        assertThatThrownBy(() -> ResilienceConfig.fromEnvironment(
                "SAGA_PAYMENT", ResilienceConfig.paymentDefaults(), percent::get))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SAGA_PAYMENT_BREAKER_FAILURE_PERCENT");
        assertThatThrownBy(() -> ResilienceConfig.fromEnvironment(
                "SAGA_PAYMENT", ResilienceConfig.paymentDefaults(), ratio::get))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SAGA_PAYMENT_RETRY_BUDGET_RATIO");
        assertThatThrownBy(() -> ResilienceConfig.fromEnvironment(
                "SAGA_PAYMENT", ResilienceConfig.paymentDefaults(), permits::get))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SAGA_PAYMENT_BULKHEAD_PERMITS");
    }

    @Test
    void shouldNamePrefixWhenOverridesContradictEachOther() {
        // Given a backoff cap below the default base
        Map<String, String> env = Map.of("SAGA_INVENTORY_BACKOFF_CAP_MS", "10");

        assertThatThrownBy(() -> ResilienceConfig.fromEnvironment(
                "SAGA_INVENTORY", ResilienceConfig.inventoryDefaults(), env::get))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SAGA_INVENTORY_")
                .hasMessageContaining("backoffCap");
    }

    @Test
    void shouldBuildReducedStacksLayerByLayer() {
        // Given the defaults
        ResilienceConfig defaults = ResilienceConfig.inventoryDefaults();

        // When layers are switched off one by one
        ResilienceConfig noBreaker = defaults.withBreaker(false);
        ResilienceConfig bare = noBreaker.withBulkhead(false).withRetries(false);

        // Then only those layers are off and everything else is kept
        assertThat(noBreaker.breakerEnabled()).isFalse();
        assertThat(noBreaker.bulkheadEnabled()).isTrue();
        assertThat(bare.bulkheadEnabled()).isFalse();
        assertThat(bare.retriesEnabled()).isFalse();
        assertThat(bare.toBuilder().withBreaker(true).withBulkhead(true).withRetries(true).build())
                .isEqualTo(defaults);
    }

    @Test
    void shouldRejectInvalidSettingsNamingThem() {
        assertThatThrownBy(() -> ResilienceConfig.builder("inventory").maxAttempts(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxAttempts");
        assertThatThrownBy(() -> ResilienceConfig.builder("inventory").attemptTimeout(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("attemptTimeout");
        assertThatThrownBy(() -> ResilienceConfig.builder(" ").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dependency");
        assertThatThrownBy(() -> ResilienceConfig.builder("inventory").failureWindow(Duration.ofMillis(5)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("failureWindow");
        assertThatThrownBy(() -> ResilienceConfig.builder("inventory")
                .minimumUsefulBudget(Duration.ofSeconds(1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("minimumUsefulBudget");
        assertThatThrownBy(() -> ResilienceConfig.builder("inventory").bulkheadMaxWait(null).build())
                .isInstanceOf(NullPointerException.class).hasMessageContaining("bulkheadMaxWait");
    }
}
