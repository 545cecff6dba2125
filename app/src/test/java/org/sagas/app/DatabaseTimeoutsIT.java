package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * The product's pool puts an end to every wait on PostgreSQL: a statement that runs too long is
 * cancelled by the server, and a server that stops answering without resetting the connection
 * (a frozen host, a dropped route) costs a thread the socket timeout, not for ever.
 */
@RealInfrastructure
class DatabaseTimeoutsIT {

    @Test
    void shouldCancelAStatementThatRunsPastTheStatementTimeout(TestInfra infra) throws Exception {
        // Given the product's pool with a statement timeout of 300 ms
        try (HikariDataSource pool = pool(infra.jdbcUrl(), infra, "300", "5000");
                Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            // When a statement takes longer
            long start = System.nanoTime();
            Throwable failure = catchThrowable(() -> st.execute("SELECT pg_sleep(5)"));

            // Then PostgreSQL cancelled it (query_canceled) well before it would have ended
            assertThat(failure).isInstanceOf(SQLException.class);
            assertThat(((SQLException) failure).getSQLState()).isEqualTo("57014");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
        }
    }

    @Test
    void shouldGiveUpOnAServerThatStopsAnswering(TestInfra infra) throws Exception {
        // Given the product's pool reaching PostgreSQL through a relay that can freeze the traffic
        URI db = URI.create(infra.jdbcUrl().substring("jdbc:".length()));
        try (FreezingRelay relay = new FreezingRelay(db.getPort());
                HikariDataSource pool = pool("jdbc:postgresql://127.0.0.1:" + relay.port() + db.getPath(), infra,
                        "1000", "2000");
                Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            st.execute("SELECT 1");

            // When the server stops answering, without closing the connection
            relay.freeze();
            long start = System.nanoTime();
            Throwable failure = catchThrowable(() -> st.execute("SELECT 1"));

            // Then the call fails after about the socket timeout instead of hanging
            assertThat(failure).isInstanceOf(SQLException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofSeconds(1),
                    Duration.ofSeconds(15));
        }
    }

    private static HikariDataSource pool(String url, TestInfra infra, String statementMs, String socketMs) {
        Settings settings = Settings.from(Map.of("SAGA_DB_URL", url, "SAGA_DB_USER", infra.user(),
                "SAGA_DB_PASSWORD", infra.password(), "SAGA_DB_STATEMENT_TIMEOUT_MS", statementMs,
                "SAGA_DB_SOCKET_TIMEOUT_MS", socketMs, "SAGA_DB_POOL_SIZE", "1")::get, Map.of());
        return new HikariDataSource(Node.poolConfig(settings, "timeouts-test"));
    }

    /** A loopback TCP relay to PostgreSQL that, once frozen, passes nothing on and closes nothing. */
    private static final class FreezingRelay implements AutoCloseable {
        private final ServerSocket server;
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();
        private volatile boolean frozen;

        FreezingRelay(int targetPort) throws IOException {
            server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
            Thread accept = new Thread(() -> {
                try {
                    while (!server.isClosed()) {
                        Socket client = server.accept();
                        Socket target = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                        sockets.add(client);
                        sockets.add(target);
                        pump(client, target);
                        pump(target, client);
                    }
                } catch (IOException closed) {
                    // the relay was closed
                }
            }, "freezing-relay");
            accept.setDaemon(true);
            accept.start();
        }

        int port() {
            return server.getLocalPort();
        }

        void freeze() {
            frozen = true;
        }

        private void pump(Socket from, Socket to) {
            Thread t = new Thread(() -> {
                byte[] buffer = new byte[8192];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    int n;
                    while ((n = in.read(buffer)) >= 0) {
                        if (!frozen) {
                            out.write(buffer, 0, n);
                            out.flush();
                        }
                    }
                } catch (IOException e) {
                    // a side closed
                }
            }, "freezing-relay-pump");
            t.setDaemon(true);
            t.start();
        }

        @Override
        public void close() {
            try {
                server.close();
                for (Socket s : sockets) {
                    s.close();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
