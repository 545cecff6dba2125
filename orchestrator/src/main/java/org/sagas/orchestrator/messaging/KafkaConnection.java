package org.sagas.orchestrator.messaging;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Where the Kafka cluster is and who this process is to it: the bootstrap servers and, on a
 * cluster that authenticates, the SASL/SCRAM user of this process's role (docs/security.md,
 * ADR 0022). Every Kafka client of the product starts from {@link #config()}, so one setting
 * secures them all. Immutable; {@link #toString()} never shows the password.
 */
public final class KafkaConnection {
    /** The SCRAM mechanism the product's clients and brokers use. */
    public static final String MECHANISM = "SCRAM-SHA-512";

    private final String bootstrapServers;
    private final String user;
    private final String password;

    private KafkaConnection(String bootstrapServers, String user, String password) {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("bootstrap servers are required");
        }
        this.bootstrapServers = bootstrapServers;
        this.user = user;
        this.password = password;
    }

    /** A cluster that takes anyone who reaches it (the embedded broker on loopback). */
    public static KafkaConnection plaintext(String bootstrapServers) {
        return new KafkaConnection(bootstrapServers, null, null);
    }

    /** A cluster that authenticates with SASL/SCRAM; this process signs in as {@code user}. */
    public static KafkaConnection scram(String bootstrapServers, String user, String password) {
        if (user == null || user.isBlank() || password == null || password.isEmpty()) {
            throw new IllegalArgumentException("a SCRAM user needs a name and a password");
        }
        if (user.contains("\"") || password.contains("\"") || user.contains("\\") || password.contains("\\")) {
            throw new IllegalArgumentException("a SCRAM user's name and password may not hold \" or \\");
        }
        return new KafkaConnection(bootstrapServers, user, password);
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** Whether clients sign in (SASL/SCRAM) rather than connect as anyone. */
    public boolean authenticated() {
        return user != null;
    }

    /** The SCRAM user, empty on a plaintext connection. */
    public String user() {
        return user == null ? "" : user;
    }

    /** A new, mutable map: the bootstrap servers and the security settings, for any Kafka client. */
    public Map<String, Object> config() {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", bootstrapServers);
        if (user != null) {
            config.put("security.protocol", "SASL_PLAINTEXT");
            config.put("sasl.mechanism", MECHANISM);
            config.put("sasl.jaas.config", jaas(user, password));
        }
        return config;
    }

    /** {@link #config()} with {@code own} on top (a client's own settings). */
    public Map<String, Object> config(Map<String, ?> own) {
        Map<String, Object> config = config();
        config.putAll(own);
        return config;
    }

    /** The JAAS line a SCRAM client (or a broker's inter-broker listener) signs in with. */
    public static String jaas(String user, String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user
                + "\" password=\"" + password + "\";";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KafkaConnection k && bootstrapServers.equals(k.bootstrapServers)
                && Objects.equals(user, k.user) && Objects.equals(password, k.password);
    }

    @Override
    public int hashCode() {
        return Objects.hash(bootstrapServers, user);
    }

    @Override
    public String toString() {
        return user == null ? bootstrapServers : user + "@" + bootstrapServers + " (SASL/SCRAM)";
    }
}
