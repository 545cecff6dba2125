package org.sagas.relay.internal;

import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.sagas.relay.PublishListener;

/** Everything one relay instance is configured with; immutable once built. */
public record RelaySettings(
        DataSource dataSource,
        String instanceId,
        MeterRegistry meterRegistry,
        int batchSize,
        Duration pollInterval,
        Duration idlePollInterval,
        Duration leaseCheckInterval,
        Duration metricsInterval,
        long vacuumThreshold,
        Duration closeTimeout,
        Map<String, Object> producerConfig,
        PublishListener publishListener) {

    public RelaySettings {
        producerConfig = Map.copyOf(producerConfig);
    }
}
