package org.sagas.orchestrator.admin;

import java.util.Locale;

/** What a token may do: a viewer reads, an operator reads and writes. */
public enum Role {
    VIEWER,
    OPERATOR;

    /** As written in a tokens file and in the audit table. */
    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @throws IllegalArgumentException for anything but {@code viewer} or {@code operator} */
    public static Role of(String text) {
        for (Role r : values()) {
            if (r.text().equals(text)) {
                return r;
            }
        }
        throw new IllegalArgumentException("role must be viewer or operator (got '" + text + "')");
    }
}
