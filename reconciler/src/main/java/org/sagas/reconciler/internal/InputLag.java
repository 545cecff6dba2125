package org.sagas.reconciler.internal;

/**
 * How far this instance's consumer is behind on an input partition: whether the partition is
 * caught up (a quiet topic) or still has records on the broker to fetch (a backlog). Thread-safe.
 */
@FunctionalInterface
public interface InputLag {
    /** Always caught up: for a topology driven by hand (tests), where nothing waits on a broker. */
    InputLag NONE = (topic, partition) -> 0;

    /** Records on the broker not fetched yet, 0 when caught up, negative when not known. */
    long lag(String topic, int partition);
}
