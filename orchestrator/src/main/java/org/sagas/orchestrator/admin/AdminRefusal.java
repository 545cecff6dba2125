package org.sagas.orchestrator.admin;

import java.util.Map;

/** An answer other than success, written as problem+json by the server's exception mapping. */
final class AdminRefusal extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final String type;
    private final String title;
    private final transient Map<String, Object> extra;

    AdminRefusal(int status, String type, String title, String detail, Map<String, Object> extra) {
        super(detail, null, false, false);
        this.status = status;
        this.type = type;
        this.title = title;
        this.extra = Map.copyOf(extra);
    }

    int status() {
        return status;
    }

    String type() {
        return type;
    }

    String title() {
        return title;
    }

    Map<String, Object> extra() {
        return extra;
    }
}
