package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/** docker-compose.yml runs every role from one image and sets only variables the product reads. */
class DockerComposeTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void shouldRunEachRoleFromTheRepositoryImage() throws Exception {
        Map<String, Object> services = map(compose().get("services"));

        for (String role : Main.ROLES) {
            Map<String, Object> service = map(services.get(role));
            assertThat(service).as("service %s", role).isNotNull();
            assertThat((List<?>) service.get("command")).first().isEqualTo(role);
            assertThat(service.get("build")).isEqualTo(".");
        }
        assertThat(map(services.get("postgres")).get("image")).isEqualTo("postgres:16");
        Map<String, Object> kafka = map(services.get("kafka"));
        assertThat((String) kafka.get("image")).startsWith("apache/kafka");
        assertThat(map(kafka.get("environment")).get("KAFKA_PROCESS_ROLES")).isEqualTo("broker,controller");
        assertThat(services).containsKey("prometheus");
        assertThat(Files.exists(ROOT.resolve("Dockerfile"))).isTrue();
        assertThat(Files.readString(ROOT.resolve("ops/prometheus.yml"))).contains("/metrics");
    }

    @Test
    void shouldSetOnlyVariablesTheApplicationReads() throws Exception {
        Map<String, Object> services = map(compose().get("services"));
        Set<String> set = new HashSet<>();
        for (String role : Main.ROLES) {
            set.addAll(map(map(services.get(role)).get("environment")).keySet());
        }

        assertThat(set).isNotEmpty().allSatisfy(variable -> assertThat(Settings.VARIABLES).containsKey(variable));
        assertThat(set).contains("SAGA_DB_URL", "SAGA_KAFKA_BOOTSTRAP", "SAGA_INVENTORY_URL", "SAGA_PAYMENT_URL");
    }

    @Test
    void shouldPublishTheOperatorApiOnTheHostsLoopbackOnly() throws Exception {
        Map<String, Object> services = map(compose().get("services"));
        Map<String, Object> api = map(services.get("api"));

        assertThat(((List<?>) api.get("ports")).stream().map(Object::toString).toList()).contains("127.0.0.1:8090:8090");
        assertThat(map(api.get("environment"))).containsEntry("SAGA_ADMIN_PORT", "8090")
                .containsKey("SAGA_DB_URL");
        for (Object service : services.values()) {
            List<?> ports = (List<?>) map(service).getOrDefault("ports", List.of());
            assertThat(ports).allSatisfy(p -> assertThat(p.toString()).satisfiesAnyOf(
                    port -> assertThat(port).doesNotContain("8090"),
                    port -> assertThat(port).startsWith("127.0.0.1:")));
        }
    }

    private static Map<String, Object> compose() throws Exception {
        // SnakeYAML resolves anchors and merge keys (<<) as docker compose does.
        try (Reader reader = Files.newBufferedReader(ROOT.resolve("docker-compose.yml"))) {
            return new Yaml().load(reader);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }
}
