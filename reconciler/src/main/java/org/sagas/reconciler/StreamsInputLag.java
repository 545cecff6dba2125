package org.sagas.reconciler;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;
import org.sagas.reconciler.internal.InputLag;

/**
 * The input lag a running {@link KafkaStreams} reports (its consumer's {@code records-lag} per
 * partition), read at most every {@code refreshMillis}. Until the application is set, every
 * partition's lag is unknown. Thread-safe.
 */
final class StreamsInputLag implements InputLag {
    private final long refreshMillis;
    private volatile KafkaStreams streams;
    private volatile Map<String, Long> lags = Map.of();
    private volatile long readAt;

    StreamsInputLag(long refreshMillis) {
        this.refreshMillis = refreshMillis;
    }

    void of(KafkaStreams app) {
        this.streams = app;
    }

    @Override
    public long lag(String topic, int partition) {
        long now = System.currentTimeMillis();
        if (now - readAt >= refreshMillis) {
            refresh(now);
        }
        return lags.getOrDefault(topic + "-" + partition, -1L);
    }

    private synchronized void refresh(long now) {
        KafkaStreams app = streams;
        if (app == null || now - readAt < refreshMillis) {
            return;
        }
        Map<String, Long> read = new HashMap<>();
        for (Map.Entry<MetricName, ? extends Metric> e : app.metrics().entrySet()) {
            MetricName name = e.getKey();
            if (!"records-lag".equals(name.name()) || !name.tags().containsKey("partition")) {
                continue;
            }
            Object value = e.getValue().metricValue();
            if (value instanceof Double d && !d.isNaN()) {
                read.merge(name.tags().get("topic") + "-" + name.tags().get("partition"), Math.round(d), Math::max);
            }
        }
        lags = read;
        readAt = now;
    }
}
