package org.sagas.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class OutboxRelayBuilderTest {
    /** Never asked for a connection: building a relay touches neither the database nor the broker. */
    private static final DataSource UNUSED = new DataSource() {
        @Override
        public Connection getConnection() throws SQLException {
            throw new SQLException("not used by this test");
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            throw new SQLException("not used by this test");
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {}

        @Override
        public void setLoginTimeout(int seconds) {}

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    };

    @Test
    void shouldRequireADataSourceAndBootstrapServers() {
        assertThatThrownBy(() -> OutboxRelay.builder().bootstrapServers("b:1").build())
                .isInstanceOf(NullPointerException.class).hasMessageContaining("dataSource");
        assertThatThrownBy(() -> OutboxRelay.builder().dataSource(UNUSED).build())
                .isInstanceOf(NullPointerException.class).hasMessageContaining("bootstrapServers");
    }

    @Test
    void shouldRefuseInvalidTuning() {
        assertThatThrownBy(() -> OutboxRelay.builder().batchSize(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> OutboxRelay.builder().pollInterval(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> OutboxRelay.builder().dataSource(UNUSED).bootstrapServers("b:1")
                .producerProperty("acks", "1").build()).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldNameItselfWhenNoInstanceIdIsGiven() {
        try (OutboxRelay relay = OutboxRelay.builder().dataSource(UNUSED).bootstrapServers("b:1").build()) {
            assertThat(relay.instanceId()).startsWith("relay-");
            assertThat(relay.leasedShards()).isEmpty();
        }
    }

    @Test
    void shouldStartOnceAndCloseIdempotently() {
        OutboxRelay relay = OutboxRelay.builder().dataSource(UNUSED).bootstrapServers("127.0.0.1:1")
                .instanceId("never-connects").closeTimeout(Duration.ofMillis(200)).build();
        relay.start();
        assertThatThrownBy(relay::start).isInstanceOf(IllegalStateException.class);
        relay.wakeUp();
        relay.close();
        relay.close();
        assertThatThrownBy(relay::start).isInstanceOf(IllegalStateException.class);
    }
}
