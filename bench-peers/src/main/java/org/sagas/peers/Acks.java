package org.sagas.peers;

import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where a peer reports each broker acknowledgement: messages on the drain topic are only counted,
 * the steady writer's are timed. Thread-safe (called from producer callbacks).
 */
final class Acks {
    private final SteadyWriter writer;
    private final String drainTopic;
    private final AtomicLong drained = new AtomicLong();

    Acks(SteadyWriter writer, String drainTopic) {
        this.writer = writer;
        this.drainTopic = drainTopic;
    }

    void acknowledged(String topic, UUID messageId, long ackNanoTime) {
        if (topic.equals(drainTopic)) {
            drained.incrementAndGet();
        } else {
            writer.acknowledged(messageId, ackNanoTime);
        }
    }

    long drained() {
        return drained.get();
    }
}
