package org.sagas.relay.internal;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The relay's producer configuration: idempotent, {@code acks=all}, at most five requests in
 * flight (the idempotent producer keeps order on retries up to five), no linger (latency first; the
 * producer still batches whatever accumulates while a request is in flight).
 */
public final class ProducerSettings {
    private ProducerSettings() {}

    /**
     * Defaults, then {@code overrides}; throws {@link IllegalArgumentException} for an override that
     * would break ordering or durability.
     */
    public static Map<String, Object> build(String bootstrapServers, String instanceId, Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, "outbox-relay-" + instanceId);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, 131_072);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 30_000);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        config.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        config.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1_000);
        config.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 100);
        config.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 1_000);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.putAll(overrides);
        check(config);
        return config;
    }

    private static void check(Map<String, Object> config) {
        String acks = String.valueOf(config.get(ProducerConfig.ACKS_CONFIG));
        if (!"all".equals(acks) && !"-1".equals(acks)) {
            throw new IllegalArgumentException("the relay needs acks=all, not " + acks);
        }
        if (!"true".equals(String.valueOf(config.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG)))) {
            throw new IllegalArgumentException("the relay needs an idempotent producer");
        }
        int inFlight = Integer.parseInt(
                String.valueOf(config.get(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION)));
        if (inFlight < 1 || inFlight > 5) {
            throw new IllegalArgumentException("max.in.flight.requests.per.connection must be 1..5, not " + inFlight);
        }
        if (config.containsKey(ProducerConfig.TRANSACTIONAL_ID_CONFIG)) {
            throw new IllegalArgumentException("the relay's producer is not transactional");
        }
    }
}
