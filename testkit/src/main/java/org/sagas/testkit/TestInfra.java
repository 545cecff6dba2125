package org.sagas.testkit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.sagas.embedded.KafkaBroker;

/**
 * One test class's view of the real infrastructure: its own database and unique topic names.
 * Pools it hands out are closed when the class ends. Thread-safe.
 */
public final class TestInfra implements ExtensionContext.Store.CloseableResource {
    private final Infrastructure shared;
    private final String database;
    private final List<HikariDataSource> pools = new ArrayList<>();

    TestInfra(Infrastructure shared, String database) {
        this.shared = shared;
        this.database = database;
    }

    public String jdbcUrl() {
        return shared.jdbcUrl(database);
    }

    public String user() {
        return shared.user();
    }

    public String password() {
        return shared.password();
    }

    public String bootstrapServers() {
        return shared.bootstrapServers();
    }

    /** A new connection pool on this class's database. */
    public synchronized DataSource dataSource(int maxConnections) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl());
        config.setUsername(user());
        config.setPassword(password());
        config.setMaximumPoolSize(maxConnections);
        config.setConnectionTimeout(10_000);
        HikariDataSource pool = new HikariDataSource(config);
        pools.add(pool);
        return pool;
    }

    public DataSource dataSource() {
        return dataSource(10);
    }

    /** A topic name no other test class uses. */
    public String topic(String base) {
        return base + "." + database + "." + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Creates {@code topic} with {@code partitions} partitions. */
    public String createTopic(String topic, int partitions) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
            return topic;
        } catch (Exception e) {
            throw new IllegalStateException("could not create topic " + topic, e);
        }
    }

    /** The embedded broker for outage tests, or null under Testcontainers. */
    public KafkaBroker broker() {
        return shared.broker();
    }

    /** Restarts the embedded PostgreSQL (same port, same data). */
    public void restartPostgres() {
        shared.restartPostgres();
    }

    public boolean embedded() {
        return shared.broker() != null;
    }

    @Override
    public synchronized void close() {
        pools.forEach(HikariDataSource::close);
        pools.clear();
    }
}
