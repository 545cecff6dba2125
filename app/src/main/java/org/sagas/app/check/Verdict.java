package org.sagas.app.check;

import java.util.List;
import java.util.Objects;

/**
 * What the checker found for one invariant: its outcome, how many orders (or SKUs) offend, the
 * first of them, and a line saying more (the first offence in words, or why it was not judged).
 */
public record Verdict(Invariant invariant, Outcome outcome, long count, List<String> offendingIds, String detail) {
    /** How an invariant came out. */
    public enum Outcome {
        PASS,
        FAIL,
        /** Could not be judged (e.g. the inventory does not say what a SKU was stocked with); not a failure. */
        NOT_JUDGED
    }

    public Verdict {
        Objects.requireNonNull(invariant, "invariant");
        Objects.requireNonNull(outcome, "outcome");
        offendingIds = List.copyOf(offendingIds);
        detail = detail == null ? "" : detail;
    }

    /** Passed when nothing offends; else failed, naming at most {@code maxIds} of {@code ids}. */
    static Verdict of(Invariant invariant, List<String> ids, int maxIds, String detail) {
        return ids.isEmpty() ? new Verdict(invariant, Outcome.PASS, 0, List.of(), detail)
                : new Verdict(invariant, Outcome.FAIL, ids.size(), ids.subList(0, Math.min(maxIds, ids.size())), detail);
    }

    static Verdict notJudged(Invariant invariant, String why) {
        return new Verdict(invariant, Outcome.NOT_JUDGED, 0, List.of(), why);
    }

    /** Not failed: passed, or not judged. */
    public boolean passed() {
        return outcome != Outcome.FAIL;
    }
}
