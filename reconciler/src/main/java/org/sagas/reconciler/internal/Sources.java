package org.sagas.reconciler.internal;

import org.apache.kafka.streams.processor.api.FixedKeyProcessorSupplier;

/** The readers of the topology's input topics. */
public final class Sources {
    private Sources() {}

    /** Reads {@code topic}'s records into observations, skipping (and logging) what cannot be read. */
    public static FixedKeyProcessorSupplier<String, byte[], Observation> reader(String topic) {
        return () -> new ParseProcessor(topic);
    }
}
