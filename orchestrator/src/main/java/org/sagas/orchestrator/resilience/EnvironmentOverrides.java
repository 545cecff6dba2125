package org.sagas.orchestrator.resilience;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/** Reads {@code <prefix>_*} variables and applies them over a {@link ResilienceConfig}. */
final class EnvironmentOverrides {

    private final String prefix;
    private final Function<String, String> env;

    EnvironmentOverrides(String prefix, Function<String, String> env) {
        if (Objects.requireNonNull(prefix, "prefix").isBlank()) {
            throw new IllegalArgumentException("prefix must not be blank");
        }
        this.prefix = prefix;
        this.env = Objects.requireNonNull(env, "env");
    }

    ResilienceConfig applyTo(ResilienceConfig defaults) {
        ResilienceConfig.Builder builder = defaults.toBuilder();
        millis("TIMEOUT_MS", 1, builder::attemptTimeout);
        integer("MAX_ATTEMPTS", 1, Integer.MAX_VALUE, builder::maxAttempts);
        millis("BACKOFF_BASE_MS", 0, builder::backoffBase);
        millis("BACKOFF_CAP_MS", 0, builder::backoffCap);
        integer("BREAKER_FAILURE_PERCENT", 1, 100, builder::failureRateThresholdPercent);
        integer("BREAKER_MIN_CALLS", 1, Integer.MAX_VALUE, builder::minimumCalls);
        millis("BREAKER_WINDOW_MS", 10, builder::failureWindow);
        millis("BREAKER_OPEN_MS", 1, builder::openDuration);
        integer("BREAKER_HALF_OPEN_TRIALS", 1, Integer.MAX_VALUE, builder::halfOpenTrials);
        integer("BULKHEAD_PERMITS", 1, Integer.MAX_VALUE, builder::bulkheadPermits);
        millis("BULKHEAD_WAIT_MS", 0, builder::bulkheadMaxWait);
        ratio("RETRY_BUDGET_RATIO", builder::retryBudgetRatio);
        integer("RETRY_BUDGET_INITIAL", 0, Integer.MAX_VALUE, builder::retryBudgetInitial);
        millis("MIN_USEFUL_BUDGET_MS", 1, builder::minimumUsefulBudget);
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            // Each value was valid alone; say which family of variables disagrees.
            throw new IllegalArgumentException(prefix + "_* settings contradict each other: " + e.getMessage(), e);
        }
    }

    private void millis(String suffix, long minimum, Consumer<Duration> target) {
        read(suffix).ifPresent(raw -> {
            long value = parseLong(suffix, raw);
            requireRange(suffix, raw, value >= minimum, "at least " + minimum);
            target.accept(Duration.ofMillis(value));
        });
    }

    private void integer(String suffix, int minimum, int maximum, Consumer<Integer> target) {
        read(suffix).ifPresent(raw -> {
            long value = parseLong(suffix, raw);
            requireRange(suffix, raw, value >= minimum && value <= maximum,
                    "between " + minimum + " and " + maximum);
            target.accept((int) value);
        });
    }

    private void ratio(String suffix, Consumer<Double> target) {
        read(suffix).ifPresent(raw -> {
            double value;
            try {
                value = Double.parseDouble(raw);
            } catch (NumberFormatException e) {
                throw malformed(suffix, raw, "a decimal number", e);
            }
            requireRange(suffix, raw, value >= 0 && value <= 1, "between 0 and 1");
            target.accept(value);
        });
    }

    private Optional<String> read(String suffix) {
        String raw = env.apply(name(suffix));
        return raw == null || raw.isBlank() ? Optional.empty() : Optional.of(raw.trim());
    }

    private long parseLong(String suffix, String raw) {
        try {
            return Long.parseLong(raw);
        } catch (NumberFormatException e) {
            throw malformed(suffix, raw, "an integer", e);
        }
    }

    private void requireRange(String suffix, String raw, boolean inRange, String expected) {
        if (!inRange) {
            throw malformed(suffix, raw, expected, null);
        }
    }

    private IllegalArgumentException malformed(String suffix, String raw, String expected, Throwable cause) {
        return new IllegalArgumentException(
                name(suffix) + " must be " + expected + ", was '" + raw + "'", cause);
    }

    private String name(String suffix) {
        return prefix + "_" + suffix;
    }
}
