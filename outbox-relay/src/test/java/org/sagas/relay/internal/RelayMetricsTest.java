package org.sagas.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RelayMetricsTest {

    @Test
    void shouldRenderTheContractsPrometheusNames() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (RelayMetrics metrics = new RelayMetrics(registry, "r1", () -> 64)) {
            metrics.table(12, 3_500, 1, 1);
            metrics.acknowledged(Instant.now().minusMillis(4));

            String text = registry.scrape();

            assertThat(text).contains("outbox_pending_rows{relay=\"r1\"} 12",
                    "outbox_oldest_age_seconds{relay=\"r1\"} 3.5",
                    "outbox_dead_letters{relay=\"r1\"} 1",
                    "outbox_blocked_aggregates{relay=\"r1\"} 1",
                    "outbox_leased_shards{relay=\"r1\"} 64",
                    "outbox_publish_latency_seconds_bucket{",
                    "outbox_publish_latency_seconds_count{relay=\"r1\"} 1",
                    "outbox_published_total{relay=\"r1\"} 1");
        }
    }

    @Test
    void shouldRemoveItsMetersWhenClosed() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new RelayMetrics(registry, "r1", () -> 0).close();
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void shouldStillShowTheLeasedShardsAfterAGarbageCollection() {
        // Given the shards read through a supplier nothing else holds, as the relay passes it
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        AtomicInteger owned = new AtomicInteger(32);
        try (RelayMetrics metrics = new RelayMetrics(registry, "r1", owned::get)) {
            // When the JVM collects garbage
            for (int i = 0; i < 3; i++) {
                System.gc();
            }

            // Then the gauge still reads the shards, not NaN
            assertThat(registry.scrape()).contains("outbox_leased_shards{relay=\"r1\"} 32");
        }
    }
}
