package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * A process refuses to start when a topic it may consume keeps records as long as the inbox keeps
 * message ids: a redelivery could come after its first delivery was forgotten, and be taken twice.
 */
@RealInfrastructure
class InboxRetentionCheckIT {

    @Test
    void shouldRefuseAnInboxRetentionShorterThanTheTopics(TestInfra infra) {
        // Given the product's topics, which keep records three days, and an inbox that keeps ids one hour
        Map<String, String> env = TestProduct.environment(infra);
        env.put("SAGA_INBOX_RETENTION_MS", "3600000");
        Settings settings = Settings.from(env::get, Map.of());

        // When a role starts, then it says why it will not
        assertThatThrownBy(() -> Product.roles(java.util.Set.of(Role.RELAY), settings,
                new PrintStream(new ByteArrayOutputStream())).close())
                .isInstanceOf(ConfigurationError.class)
                .hasMessageContaining("SAGA_INBOX_RETENTION_MS");
    }
}
