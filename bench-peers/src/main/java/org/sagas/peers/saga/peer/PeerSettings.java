package org.sagas.peers.saga.peer;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.net.URI;
import java.util.Map;

/**
 * What the benchmark hands a peer's JVM, from its environment: {@code PEER_DB_URL} (its own
 * database; the URL carries the {@code ApplicationName} its PostgreSQL backends are told apart
 * by), {@code PEER_DB_USER}, {@code PEER_DB_PASSWORD}, {@code PEER_POOL_SIZE} (the same for every
 * contender), {@code PEER_INVENTORY_URL}, {@code PEER_PAYMENT_URL}. A missing one ends the peer
 * with its name.
 */
public record PeerSettings(String dbUrl, String dbUser, String dbPassword, int poolSize, URI inventory, URI payment) {

    public static PeerSettings fromEnvironment(Map<String, String> env) {
        return new PeerSettings(required(env, "PEER_DB_URL"), required(env, "PEER_DB_USER"),
                required(env, "PEER_DB_PASSWORD"), Integer.parseInt(required(env, "PEER_POOL_SIZE")),
                URI.create(required(env, "PEER_INVENTORY_URL")), URI.create(required(env, "PEER_PAYMENT_URL")));
    }

    /** A pool of {@link #poolSize()} connections, all opened at once, as the product's is. */
    public HikariDataSource pool(String name) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(dbUrl);
        config.setUsername(dbUser);
        config.setPassword(dbPassword);
        config.setMaximumPoolSize(poolSize);
        config.setConnectionTimeout(10_000);
        config.setPoolName(name);
        return new HikariDataSource(config);
    }

    public SandboxClient sandbox() {
        return new SandboxClient(inventory, payment);
    }

    private static String required(Map<String, String> env, String name) {
        String value = env.get(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(name + " is not set (the peers benchmark sets it)");
        }
        return value;
    }
}
