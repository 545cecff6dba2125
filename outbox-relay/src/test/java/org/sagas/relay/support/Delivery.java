package org.sagas.relay.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Checks what a {@link TopicReader} saw against what {@link SagaLikeWriter} committed. */
public final class Delivery {
    private Delivery() {}

    /**
     * Every committed event arrived exactly once, keyed by its aggregate, and each aggregate's
     * events arrived in commit order (sequence 1, 2, 3, ...).
     */
    public static void assertExactlyOnceInOrder(List<TopicReader.Seen> seen, Map<String, Integer> committed) {
        assertThat(duplicates(seen)).as("records published twice").isZero();
        assertInOrderWithoutLoss(seen, committed);
    }

    /**
     * Every committed event arrived, and in each aggregate's stream the first arrival of each
     * event is in commit order; a re-sent copy (same message id, after a crash) is ignored, as
     * consumers de-duplicate by message id.
     */
    public static void assertInOrderWithoutLoss(List<TopicReader.Seen> seen, Map<String, Integer> committed) {
        Map<String, List<Integer>> perKey = new HashMap<>();
        Set<String> messageIds = new HashSet<>();
        for (TopicReader.Seen s : seen) {
            if (!messageIds.add(s.messageId())) {
                continue;
            }
            String[] parts = s.value().split(":");
            assertThat(parts[0]).as("record key is its aggregate").isEqualTo(s.key());
            perKey.computeIfAbsent(s.key(), k -> new ArrayList<>()).add(Integer.parseInt(parts[1]));
        }
        assertThat(perKey.keySet()).as("aggregates seen").isEqualTo(committed.keySet());
        for (Map.Entry<String, Integer> e : committed.entrySet()) {
            List<Integer> expected = new ArrayList<>();
            for (int i = 1; i <= e.getValue(); i++) {
                expected.add(i);
            }
            assertThat(perKey.get(e.getKey())).as("sequence of %s", e.getKey()).isEqualTo(expected);
        }
    }

    public static long duplicates(List<TopicReader.Seen> seen) {
        Set<String> ids = new HashSet<>();
        return seen.stream().filter(s -> !ids.add(s.messageId())).count();
    }

    public static long total(Map<String, Integer> committed) {
        return committed.values().stream().mapToLong(Integer::longValue).sum();
    }
}
