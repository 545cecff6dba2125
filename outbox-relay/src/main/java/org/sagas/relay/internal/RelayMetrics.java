package org.sagas.relay.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The relay's meters. Micrometer names map to the Prometheus names of the contract:
 * {@code outbox.pending.rows} → {@code outbox_pending_rows}, {@code outbox.oldest.age} (seconds)
 * → {@code outbox_oldest_age_seconds}, {@code outbox.publish.latency} (a timer with histogram
 * buckets) → {@code outbox_publish_latency_seconds}, {@code outbox.dead.letters} →
 * {@code outbox_dead_letters}, {@code outbox.blocked.aggregates} → {@code outbox_blocked_aggregates}.
 * The table-wide gauges (pending, oldest, dead letters, blocked) describe the whole outbox and read
 * the same on every relay; every meter carries the tag {@code relay} with the instance id.
 * Thread-safe.
 */
public final class RelayMetrics implements AutoCloseable {
    private final MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();
    private final AtomicLong pendingRows = new AtomicLong();
    private final AtomicLong oldestAgeMillis = new AtomicLong();
    private final AtomicLong deadLetters = new AtomicLong();
    private final AtomicLong blockedAggregates = new AtomicLong();
    private final Timer publishLatency;
    private final Counter published;
    private final Counter deadLettered;
    private final Counter sendFailures;

    public RelayMetrics(MeterRegistry registry, String instanceId, Supplier<Integer> leasedShards) {
        this.registry = registry;
        Tags tags = Tags.of("relay", instanceId);
        gauge(Gauge.builder("outbox.pending.rows", pendingRows, AtomicLong::get)
                .description("Committed outbox rows not yet acknowledged by Kafka (whole table)"), tags);
        gauge(Gauge.builder("outbox.oldest.age", oldestAgeMillis, a -> a.get() / 1000.0)
                .baseUnit("seconds")
                .description("Age of the oldest unpublished outbox row"), tags);
        gauge(Gauge.builder("outbox.dead.letters", deadLetters, AtomicLong::get)
                .description("Outbox rows the broker refused for good, waiting for an operator"), tags);
        gauge(Gauge.builder("outbox.blocked.aggregates", blockedAggregates, AtomicLong::get)
                .description("Aggregates whose later rows wait behind a dead letter"), tags);
        // A gauge holds what it reads weakly: the supplier is held strongly, or the first garbage
        // collection takes it and the gauge reads NaN for the rest of the relay's life.
        gauge(Gauge.builder("outbox.leased.shards", leasedShards, s -> s.get()).strongReference(true)
                .description("Outbox shards this relay instance publishes"), tags);
        this.publishLatency = add(Timer.builder("outbox.publish.latency")
                .description("From the row's insert (commit) to the broker's acknowledgement")
                .tags(tags)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(5))
                .register(registry));
        this.published = add(Counter.builder("outbox.published").description("Rows acknowledged by Kafka")
                .tags(tags).register(registry));
        this.deadLettered = add(Counter.builder("outbox.dead.lettered")
                .description("Rows moved to the dead letters").tags(tags).register(registry));
        this.sendFailures = add(Counter.builder("outbox.send.failures")
                .description("Publishing rounds in which a send failed; the rows stay and are retried")
                .tags(tags).register(registry));
    }

    public void acknowledged(Instant createdAt) {
        long nanos = Math.max(0, Duration.between(createdAt, Instant.now()).toNanos());
        publishLatency.record(nanos, TimeUnit.NANOSECONDS);
        published.increment();
    }

    public void deadLettered() {
        deadLettered.increment();
    }

    public void sendFailed() {
        sendFailures.increment();
    }

    public void table(long pending, long oldestMillis, long dead, long blocked) {
        pendingRows.set(pending);
        oldestAgeMillis.set(oldestMillis);
        deadLetters.set(dead);
        blockedAggregates.set(blocked);
    }

    @Override
    public void close() {
        meters.forEach(registry::remove);
    }

    private <T> void gauge(Gauge.Builder<T> builder, Tags tags) {
        add(builder.tags(tags).register(registry));
    }

    private <M extends Meter> M add(M meter) {
        meters.add(meter);
        return meter;
    }
}
