package org.sagas.app.check;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a judge found, uncapped: each offending id (an order, or a SKU) with why, in the order to
 * report them, and a summary of what was judged. {@code judged} false: it could not be judged.
 */
record Offences(Map<String, String> why, String summary, boolean judged) {
    Offences {
        why = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(why));
    }

    static Offences none(String summary) {
        return new Offences(Map.of(), summary, true);
    }

    static Offences notJudged(String why) {
        return new Offences(Map.of(), why, false);
    }

    /** Only the offences {@code again} found too: what a second read confirms (a race is gone by then). */
    Offences confirmedBy(Offences again) {
        Map<String, String> both = new LinkedHashMap<>();
        again.why.forEach((id, reason) -> {
            if (why.containsKey(id)) {
                both.put(id, reason);
            }
        });
        return new Offences(both, again.summary, again.judged);
    }

    Verdict verdict(Invariant invariant, int maxIds) {
        if (!judged) {
            return Verdict.notJudged(invariant, summary);
        }
        if (why.isEmpty()) {
            return Verdict.of(invariant, java.util.List.of(), maxIds, summary);
        }
        Map.Entry<String, String> first = why.entrySet().iterator().next();
        return Verdict.of(invariant, java.util.List.copyOf(why.keySet()), maxIds,
                first.getKey() + ": " + first.getValue() + " (" + summary + ")");
    }
}
