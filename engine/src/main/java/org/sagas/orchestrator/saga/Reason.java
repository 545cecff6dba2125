package org.sagas.orchestrator.saga;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Why a transition happened: a stable {@code code} in lower snake case that customers may see
 * (a definition names its own, e.g. {@code out_of_stock}; the engine's are below), and a {@code
 * detail} for logs and operators only (a participant's own text, an exception). Immutable.
 *
 * @param detail may be null
 */
public record Reason(String code, String detail) {
    private static final Pattern CODE = Pattern.compile("[a-z][a-z0-9_]{0,63}");

    /** The saga was created at its first step. */
    public static final String STARTED = "started";
    /** A synchronous step is due (the next one, or the same after a crash). */
    public static final String STEP_DUE = "step_due";
    /** An asynchronous step's command is out. */
    public static final String AWAITING_REPLY = "awaiting_reply";
    /** The asynchronous step's reply did not come in time; the saga still waits. */
    public static final String STEP_TIMED_OUT = "step_timed_out";
    /** The asynchronous step's command was sent again under the same key. */
    public static final String COMMAND_RESENT = "command_resent";
    /** A step threw; it is tried again a bounded number of times. */
    public static final String STEP_FAILED = "step_failed";
    /** A compensation was done. */
    public static final String COMPENSATED = "compensated";
    /** Every step was done. */
    public static final String COMPLETED = "completed";
    /** An operator asked for the current step to be run (or its command sent) again. */
    public static final String OPERATOR_RETRY = "operator_retry";
    /** An operator moved the instance to another definition version (its history goes on). */
    public static final String MIGRATED = "migrated";
    /** A parked forward step waited past its time to live. */
    public static final String EXPIRED = "expired";

    public Reason {
        Objects.requireNonNull(code, "code");
        if (!CODE.matcher(code).matches()) {
            throw new IllegalArgumentException("a reason code is lower snake case, at most 64 characters: " + code);
        }
    }

    public static Reason of(String code) {
        return new Reason(code, null);
    }

    public static Reason of(String code, String detail) {
        return new Reason(code, detail);
    }

    /** The detail when there is one, else the code: what operators read. */
    public String describe() {
        return detail == null ? code : code + ": " + detail;
    }
}
