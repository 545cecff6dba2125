package org.sagas.orchestrator.resilience;

import java.util.Locale;

/** How important a request is when load must be shed, from its {@code X-Priority} header. */
public enum Priority {
    HIGH,
    NORMAL,
    LOW;

    /**
     * Parses an {@code X-Priority} header: {@code high}, {@code normal} or {@code low} in any case;
     * absent or blank means {@link #NORMAL}.
     *
     * @throws IllegalArgumentException for any other value
     */
    public static Priority parse(String header) {
        if (header == null || header.isBlank()) {
            return NORMAL;
        }
        return switch (header.trim().toLowerCase(Locale.ROOT)) {
            case "high" -> HIGH;
            case "normal" -> NORMAL;
            case "low" -> LOW;
            default -> throw new IllegalArgumentException(
                    "X-Priority must be high, normal or low, was '" + header + "'");
        };
    }

    /** Returns the lower-case name used in headers and metric tags. */
    public String tagValue() {
        return name().toLowerCase(Locale.ROOT);
    }
}
