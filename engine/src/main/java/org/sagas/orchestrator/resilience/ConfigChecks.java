package org.sagas.orchestrator.resilience;

import java.time.Duration;

/**
 * The range checks of the policy configs, so every message has one shape: the field, the range
 * it accepts and the value it got.
 */
final class ConfigChecks {

    private ConfigChecks() {
    }

    /** Returns {@code value}, or throws a {@link NullPointerException} naming the field never set. */
    static <T> T required(String field, T value) {
        if (value == null) {
            throw new NullPointerException(field + " must be set");
        }
        return value;
    }

    /** Returns {@code value}, or throws if it is outside {@code [min, max]}. */
    static int between(String field, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(field + " must be from " + min + " to " + max + ", was " + value);
        }
        return value;
    }

    /** Returns {@code value}, or throws if it is outside {@code [min, max]}. */
    static double between(String field, double value, double min, double max) {
        if (!(value >= min && value <= max)) {
            throw new IllegalArgumentException(field + " must be from " + min + " to " + max + ", was " + value);
        }
        return value;
    }

    /** Returns {@code value}, or throws if it is missing or outside {@code [min, max]}. */
    static Duration between(String field, Duration value, Duration min, Duration max) {
        required(field, value);
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException(field + " must be from " + text(min) + " to " + text(max)
                    + ", was " + text(value));
        }
        return value;
    }

    /** Returns {@code value}, or throws if it is missing, not positive or above {@code max}. */
    static Duration positive(String field, Duration value, Duration max) {
        required(field, value);
        if (value.isNegative() || value.isZero() || value.compareTo(max) > 0) {
            throw new IllegalArgumentException(field + " must be above 0 ms and at most " + text(max)
                    + ", was " + text(value));
        }
        return value;
    }

    /** Milliseconds when whole, else the ISO form: the unit the settings use. */
    private static String text(Duration d) {
        return d.getNano() % 1_000_000 == 0 ? d.toMillis() + " ms" : d.toString();
    }
}
