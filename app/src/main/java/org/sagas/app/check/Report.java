package org.sagas.app.check;

import java.time.Instant;
import java.util.List;

/** One run of the checker: when, with what options, and a verdict per invariant judged (in {@link Invariant} order). */
public record Report(Instant checkedAt, CheckOptions options, List<Verdict> verdicts) {
    public Report {
        verdicts = List.copyOf(verdicts);
    }

    /** Whether no invariant failed. */
    public boolean passed() {
        return verdicts.stream().allMatch(Verdict::passed);
    }

    /** The invariants that failed. */
    public List<Invariant> failed() {
        return verdicts.stream().filter(v -> !v.passed()).map(Verdict::invariant).toList();
    }

    /** The verdict on {@code invariant}; it must have been judged. */
    public Verdict verdict(Invariant invariant) {
        return verdicts.stream().filter(v -> v.invariant() == invariant).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(invariant + " was not judged"));
    }
}
