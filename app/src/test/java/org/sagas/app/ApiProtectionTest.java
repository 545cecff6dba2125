package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApiProtectionTest {
    @TempDir
    Path dir;

    @Test
    void shouldServeAnOpenApiOnLoopback() {
        assertThat(protection(Map.of()).access("127.0.0.1").isOpen()).isTrue();
    }

    @Test
    void shouldRefuseAnOpenApiOnANonLoopbackAddressUnlessAuthIsOffExplicitly() {
        assertThatThrownBy(() -> protection(Map.of()).access("0.0.0.0")).isInstanceOf(ConfigurationError.class)
                .hasMessageContaining("SAGA_API_KEYS_FILE").hasMessageContaining("SAGA_API_AUTH=off");

        assertThat(protection(Map.of("SAGA_API_AUTH", "off")).access("0.0.0.0").isOpen()).isTrue();
    }

    @Test
    void shouldRequireKeysWithAKeysFileOnAnyAddress() throws IOException {
        Path keys = Files.writeString(dir.resolve("keys"), "k-0123456789abcdef c-1\n");

        assertThat(protection(Map.of("SAGA_API_KEYS_FILE", keys.toString())).access("0.0.0.0").isOpen()).isFalse();
    }

    @Test
    void shouldStopWithOneClearLineForAWrongKeysFileOrContradictorySettings() throws IOException {
        Path bad = Files.writeString(dir.resolve("bad"), "lonely-key\n");

        assertThatThrownBy(() -> protection(Map.of("SAGA_API_KEYS_FILE", bad.toString())).access("127.0.0.1"))
                .isInstanceOf(ConfigurationError.class).hasMessageContaining("line 1")
                .hasMessageNotContaining("lonely-key");
        assertThatThrownBy(() -> protection(Map.of("SAGA_API_KEYS_FILE", dir.resolve("missing").toString()))
                .access("127.0.0.1")).isInstanceOf(ConfigurationError.class).hasMessageContaining("cannot read");
        assertThatThrownBy(() -> protection(Map.of("SAGA_API_AUTH", "on")).access("127.0.0.1"))
                .isInstanceOf(ConfigurationError.class);
        assertThatThrownBy(() -> protection(Map.of("SAGA_API_AUTH", "maybe"))).isInstanceOf(ConfigurationError.class);
    }

    private static ApiProtection protection(Map<String, String> env) {
        Map<String, String> all = new HashMap<>(env);
        all.putIfAbsent("SAGA_HTTP_PORT", "0");
        all.putIfAbsent("SAGA_INVENTORY_PORT", "0");
        all.putIfAbsent("SAGA_PAYMENT_PORT", "0");
        return ApiProtection.from(Settings.from(all::get, Map.of()));
    }
}
