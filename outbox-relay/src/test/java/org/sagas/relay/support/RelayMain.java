package org.sagas.relay.support;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import org.sagas.relay.OutboxRelay;

/**
 * A relay in a process of its own, for tests of several relay processes:
 * {@code RelayMain <jdbcUrl> <user> <password> <bootstrapServers> <instanceId>}. Prints
 * {@code READY} once started; stops when its standard input closes or on SIGTERM.
 */
public final class RelayMain {
    private RelayMain() {}

    public static void main(String[] args) throws IOException {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args[0]);
        config.setUsername(args[1]);
        config.setPassword(args[2]);
        config.setMaximumPoolSize(3);
        HikariDataSource dataSource = new HikariDataSource(config);
        OutboxRelay relay = OutboxRelay.builder()
                .dataSource(dataSource)
                .bootstrapServers(args[3])
                .instanceId(args[4])
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            relay.close();
            dataSource.close();
        }));
        relay.start();
        System.out.println("READY");
        System.out.flush();
        while (System.in.read() >= 0) {
            // wait for the parent to close our standard input
        }
        System.exit(0);
    }
}
