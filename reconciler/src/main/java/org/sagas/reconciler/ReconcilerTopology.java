package org.sagas.reconciler;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.reconciler.internal.InputLag;
import org.sagas.reconciler.internal.JsonSerde;
import org.sagas.reconciler.internal.Observation;
import org.sagas.reconciler.internal.OrderLedger;
import org.sagas.reconciler.internal.ReconcileProcessor;
import org.sagas.reconciler.internal.Sources;

/**
 * The reconciliation topology: {@code orders.events}, {@code payments.commands},
 * {@code payments.events} (keyed by order) and the two ledger feeds (keyed by entry, partitioned by
 * order) meet in one processor with two stores — each order's
 * ledger and the due checks ordered by time — and its findings
 * go to {@code reconciliation.findings}, keyed by order.
 */
public final class ReconcilerTopology {
    private ReconcilerTopology() {}

    /** The topology driven by hand (tests): every input counts as caught up. */
    public static Topology build(ReconcilerConfig config) {
        return build(config, InputLag.NONE);
    }

    /** The topology, its clocks waiting on inputs that {@code inputLag} reports behind. */
    public static Topology build(ReconcilerConfig config, InputLag inputLag) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ReconcileProcessor.LEDGERS),
                Serdes.String(), new JsonSerde<>(OrderLedger.class)).withCachingEnabled());
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ReconcileProcessor.TIMERS),
                Serdes.String(), Serdes.String()).withCachingEnabled());

        KStream<String, Observation> orders = source(builder, Topics.ORDERS_EVENTS);
        KStream<String, Observation> commands = source(builder, Topics.PAYMENTS_COMMANDS);
        KStream<String, Observation> replies = source(builder, Topics.PAYMENTS_EVENTS);
        // Keyed by entry but partitioned by order (LedgerPuller): co-partitioned with the order's other
        // topics, so all of an order's facts meet in one task, read in timestamp order, without a repartition hop.
        KStream<String, Observation> ledger = source(builder, Topics.LEDGER_CHARGES)
                .merge(source(builder, Topics.LEDGER_RESERVATIONS), Named.as("ledger-entries"));
        orders.merge(commands, Named.as("orders-and-commands"))
                .merge(replies, Named.as("with-replies"))
                .merge(ledger, Named.as("with-ledger"))
                .process(() -> new ReconcileProcessor(config, inputLag), Named.as("reconcile"), ReconcileProcessor.LEDGERS,
                        ReconcileProcessor.TIMERS)
                .to(Topics.RECONCILIATION_FINDINGS, Produced.with(Serdes.String(), new JsonSerde<>(Finding.class))
                        .withName("findings"));
        return builder.build();
    }

    private static KStream<String, Observation> source(StreamsBuilder builder, String topic) {
        return builder.stream(topic, Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("read-" + topic))
                .processValues(Sources.reader(topic), Named.as("parse-" + topic));
    }
}
