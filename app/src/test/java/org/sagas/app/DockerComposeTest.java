package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * docker-compose.yml runs every role from one image, sets only variables the product reads,
 * publishes the API alone to the network, takes passwords from Docker secrets, and wires
 * Prometheus and Grafana to the files under ops/; the image runs as an unprivileged user.
 */
class DockerComposeTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void shouldRunEachRoleFromTheRepositoryImage() throws Exception {
        Map<String, Object> services = map(compose().get("services"));

        for (String role : Main.ROLES) {
            Map<String, Object> service = map(services.get(role));
            assertThat(service).as("service %s", role).isNotNull();
            assertThat((List<?>) service.get("command")).first().isEqualTo(role);
        }
        assertThat(map(services.get("postgres")).get("image")).isEqualTo("postgres:16");
        for (int node = 1; node <= 3; node++) {
            Map<String, Object> kafka = map(services.get("kafka-" + node));
            assertThat((String) kafka.get("image")).startsWith("apache/kafka");
            assertThat(list(kafka.get("volumes"))).anyMatch(v -> String.valueOf(v).endsWith(":/etc/sagas/kafka-start.sh:ro"));
        }
        assertThat(services).containsKey("prometheus");
        assertThat(Files.exists(ROOT.resolve("Dockerfile"))).isTrue();
        assertThat(Files.readString(ROOT.resolve("ops/prometheus.yml"))).contains("/metrics");
    }

    @Test
    void shouldHaveTheClustersShapeThreeBrokersEachOnItsVolumeAndTwoOfEachRole() throws Exception {
        Map<String, Object> services = map(compose().get("services"));
        String broker = Files.readString(ROOT.resolve("ops/kafka/start.sh"));

        // Three brokers, each with its id and its own data volume, healthy before the users are made
        for (int node = 1; node <= 3; node++) {
            Map<String, Object> kafka = map(services.get("kafka-" + node));
            assertThat(map(kafka.get("environment"))).containsEntry("NODE_ID", Integer.toString(node));
            assertThat(list(kafka.get("volumes"))).contains("kafkadata-" + node + ":/var/lib/kafka/data");
            assertThat(kafka).containsKey("healthcheck");
            assertThat(map(map(map(services.get("kafka-access")).get("depends_on")).get("kafka-" + node)))
                    .containsEntry("condition", "service_healthy");
        }
        assertThat(broker).contains("controller.quorum.voters=1@kafka-1:9093,2@kafka-2:9093,3@kafka-3:9093",
                "default.replication.factor=3", "min.insync.replicas=2", "offsets.topic.replication.factor=3",
                "transaction.state.log.min.isr=2", "unclean.leader.election.enable=false");
        // Two of each role: two api services, the workers as two replicas each, all on the three brokers
        assertThat(map(services.get("api-2")).get("command")).isEqualTo(List.of("api"));
        for (String role : List.of("saga-worker", "relay", "payment-worker", "reconciler")) {
            assertThat(map(map(services.get(role)).get("deploy"))).as(role).containsEntry("replicas", 2);
        }
        for (String role : Main.ROLES) {
            assertThat(map(map(services.get(role)).get("environment")).get("SAGA_KAFKA_BOOTSTRAP")).as(role)
                    .isEqualTo("kafka-1:9092,kafka-2:9092,kafka-3:9092");
        }
    }

    @Test
    void shouldSignEachRoleInToKafkaAsItsOwnUserOnABrokerThatAuthenticates() throws Exception {
        Map<String, Object> services = map(compose().get("services"));
        String broker = Files.readString(ROOT.resolve("ops/kafka/start.sh"));

        for (String role : Main.ROLES) {
            Map<String, Object> env = map(map(services.get(role)).get("environment"));
            assertThat(env.get("SAGA_KAFKA_USER")).as("%s's Kafka user", role).isEqualTo(KafkaAccess.of(role).user());
            assertThat(String.valueOf(env.get("SAGA_KAFKA_PASSWORD_FILE"))).startsWith("/run/secrets/kafka_");
            assertThat(map(map(services.get(role)).get("depends_on"))).containsKey("kafka-access");
        }
        // No listener takes anyone; only the super user is above the ACLs.
        assertThat(broker).contains("listener.security.protocol.map=CLIENT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT",
                "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "allow.everyone.if.no.acl.found=false", "super.users=User:$admin");
        assertThat(broker).doesNotContain("PLAINTEXT://", "CLIENT:PLAINTEXT");
        assertThat(list(map(services.get("kafka-access")).get("command"))).containsExactly("kafka-access");
    }

    @Test
    void shouldSetOnlyVariablesTheApplicationReads() throws Exception {
        Map<String, Object> services = map(compose().get("services"));
        Set<String> set = new HashSet<>();
        for (String role : Main.ROLES) {
            set.addAll(map(map(services.get(role)).get("environment")).keySet());
        }

        // OTEL_* are OpenTelemetry's own variables, read by its SDK autoconfiguration (ADR 0018).
        assertThat(set).isNotEmpty().filteredOn(variable -> !variable.startsWith("OTEL_"))
                .allSatisfy(variable -> assertThat(Settings.variables()).contains(variable));
        assertThat(set).contains("SAGA_DB_URL", "SAGA_KAFKA_BOOTSTRAP", "SAGA_INVENTORY_URL", "SAGA_PAYMENT_URL");
        // And each value is one its setting accepts (a boolean written "off" would stop the role at start).
        for (String service : services.keySet()) {
            Map<String, Object> env = map(map(services.get(service)).getOrDefault("environment", Map.of()));
            for (org.sagas.orchestrator.config.SettingsTable table : Settings.tables()) {
                org.assertj.core.api.Assertions.assertThatCode(() -> table.read(name -> env.containsKey(name)
                        ? String.valueOf(env.get(name)) : null)).as("%s: %s", service, table.title())
                        .doesNotThrowAnyException();
            }
        }
    }

    @Test
    void shouldBuildOnlyTheSandboxServiceFromTheImagesSandboxTarget() throws Exception {
        Map<String, Object> services = map(compose().get("services"));
        String dockerfile = Files.readString(ROOT.resolve("Dockerfile"));

        // The production image (the default, last stage) copies lib/ alone; the sandbox target adds sandbox-lib/
        assertThat(dockerfile).containsPattern("(?m)^FROM \\S+ AS sandbox$")
                .containsPattern("(?m)^COPY --from=build /src/app/target/sandbox-lib /app/lib$");
        assertThat(dockerfile.substring(dockerfile.lastIndexOf("\nFROM "))).doesNotContain("sandbox-lib")
                .doesNotContain(" AS ");
        Map<String, Object> sandbox = map(services.get("sandbox"));
        assertThat(map(sandbox.get("build"))).containsEntry("context", ".").containsEntry("target", "sandbox");
        assertThat(sandbox.get("image")).isNotEqualTo("sagas:local");
        services.forEach((name, service) -> {
            Object build = map(service).get("build");
            if (build != null && !name.equals("sandbox")) {
                assertThat(build).as("%s builds the production image", name).isEqualTo(".");
                assertThat(map(service).get("image")).as(name).isEqualTo("sagas:local");
            }
        });
    }

    @Test
    void shouldRunTheImageAsAnUnprivilegedUser() throws Exception {
        // The last USER of the production image's stages is the one the container runs as.
        String name = user(Files.readAllLines(ROOT.resolve("Dockerfile"))).split(":")[0];
        assertThat(name).isNotIn("root", "0");
        assertThat(name).as("numeric, so runAsNonRoot can check it").matches("[1-9][0-9]*");
    }

    @Test
    void shouldPublishOnlyTheApiBeyondThisHost() throws Exception {
        Map<String, Object> services = map(compose().get("services"));
        List<String> published = new ArrayList<>();

        services.forEach((name, service) -> {
            Map<String, Object> s = map(service);
            assertThat(s.get("network_mode")).as("%s network_mode", name).isNotEqualTo("host");
            List<?> ports = s.get("ports") == null ? List.of() : (List<?>) s.get("ports");
            for (Object port : ports) {
                assertThat(port).as("%s: short syntax, so the host address is visible", name).isInstanceOf(String.class);
                String mapping = (String) port;
                published.add(name + " " + mapping);
                if (!(name.equals("api") && mapping.equals("8080:8080"))
                        && !(name.equals("api-2") && mapping.equals("8083:8080"))) {
                    assertThat(mapping).as("%s publishes %s beyond loopback", name, mapping)
                            .matches("(127\\.0\\.0\\.1|\\[::1]):\\d+:\\d+(/tcp|/udp)?");
                }
            }
        });
        assertThat(published).contains("api 8080:8080", "sandbox 127.0.0.1:8081:8081",
                "prometheus 127.0.0.1:9090:9090", "grafana 127.0.0.1:3000:3000");
        assertThat(published).noneMatch(p -> p.startsWith("postgres ") || p.startsWith("kafka-"));
    }

    @Test
    void shouldTakePasswordsFromDockerSecretsNeverFromTheFile() throws Exception {
        Map<String, Object> compose = compose();
        Map<String, Object> services = map(compose.get("services"));
        Map<String, Object> secrets = map(compose.get("secrets"));

        // No variable that names a secret holds one: only *_FILE variables pointing at /run/secrets.
        services.forEach((name, service) -> map(map(service).get("environment") == null ? Map.of()
                : map(service).get("environment")).forEach((variable, value) -> {
            if (variable.matches(".*(PASSWORD|SECRET|TOKEN|_KEY).*")) {
                assertThat(variable).as("%s sets %s", name, variable).endsWith("_FILE");
                assertThat(String.valueOf(value)).as("%s %s", name, variable).startsWith("/run/secrets/");
                String secret = String.valueOf(value).substring("/run/secrets/".length());
                assertThat(list(map(service).get("secrets"))).as("%s mounts %s", name, secret).contains(secret);
            }
        }));
        assertThat(map(map(services.get("api")).get("environment")))
                .containsEntry("SAGA_DB_PASSWORD_FILE", "/run/secrets/db_api_password")
                .doesNotContainKey("SAGA_DB_PASSWORD");
        assertThat(map(map(services.get("postgres")).get("environment")))
                .containsEntry("POSTGRES_PASSWORD_FILE", "/run/secrets/db_superuser_password")
                .doesNotContainKey("POSTGRES_PASSWORD");
        // The secret files are made on the host by ops/make-secrets.sh and never committed or built in.
        assertThat(secrets).isNotEmpty().allSatisfy((name, secret) ->
                assertThat(String.valueOf(map(secret).get("file"))).isEqualTo("./ops/secrets/" + name));
        assertThat(Files.readAllLines(ROOT.resolve(".gitignore"))).contains("/ops/secrets/");
        assertThat(Files.readAllLines(ROOT.resolve(".dockerignore"))).contains("ops/secrets");
        assertThat(Files.readString(ROOT.resolve("ops/make-secrets.sh"))).contains(secrets.keySet());
    }

    @Test
    void shouldGivePrometheusTheAlertRulesAndGrafanaTheDashboard() throws Exception {
        Map<String, Object> services = map(compose().get("services"));
        List<Object> prometheus = list(map(services.get("prometheus")).get("volumes"));
        List<Object> grafana = list(map(services.get("grafana")).get("volumes"));

        assertThat(prometheus).contains("./ops/prometheus.yml:/etc/prometheus/prometheus.yml:ro",
                "./ops/prometheus/alerts.yml:/etc/prometheus/prometheus/alerts.yml:ro");
        assertThat(Files.readString(ROOT.resolve("ops/prometheus.yml"))).contains("- prometheus/alerts.yml");
        assertThat(grafana).contains("./ops/grafana/provisioning:/etc/grafana/provisioning:ro",
                "./ops/grafana/dashboards:/etc/grafana/dashboards:ro");
        assertThat(Files.readString(ROOT.resolve("ops/grafana/provisioning/dashboards/sagas.yml")))
                .contains("path: /etc/grafana/dashboards");
        assertThat(Files.exists(ROOT.resolve("ops/grafana/dashboards/sagas.json"))).isTrue();
    }

    @Test
    void shouldGiveEachRoleADatabaseUserOfItsOwnAndTheSuperuserToNone() throws Exception {
        Map<String, Object> services = map(compose().get("services"));
        String initSql = Files.readString(ROOT.resolve("ops/postgres/init-roles.sql"));
        Set<String> users = new HashSet<>();
        Set<String> passwords = new HashSet<>();

        for (String role : Main.ROLES) {
            Map<String, Object> env = map(map(services.get(role)).get("environment"));
            String user = String.valueOf(env.get("SAGA_DB_USER"));
            assertThat(users.add(user)).as("%s has a user of its own, not %s", role, user).isTrue();
            assertThat(passwords.add(String.valueOf(env.get("SAGA_DB_PASSWORD_FILE")))).as(role).isTrue();
            // A login role the init script creates: not the superuser, which the image names postgres.
            assertThat(user).as(role).isNotIn("postgres", "null");
            assertThat(initSql).as(role).containsPattern("CREATE ROLE " + user + " LOGIN PASSWORD");
            assertThat(list(map(services.get(role)).get("secrets"))).as(role).doesNotContain("db_superuser_password");
        }
        // The superuser's password is the postgres container's alone.
        services.forEach((name, service) -> {
            if (!name.equals("postgres")) {
                assertThat(list(map(service).getOrDefault("secrets", List.of()))).as(name)
                        .doesNotContain("db_superuser_password");
            }
        });
        assertThat(list(map(services.get("postgres")).get("volumes")))
                .contains("./ops/postgres/init-roles.sql:/docker-entrypoint-initdb.d/10-init-roles.sql:ro");
        assertThat(map(map(services.get("postgres")).get("environment"))).doesNotContainKey("POSTGRES_USER");
    }

    @Test
    void shouldLeaveTheSchemaToTheMigrateServiceAndTheSandboxToADatabaseOfItsOwn() throws Exception {
        Map<String, Object> services = map(compose().get("services"));
        String initSql = Files.readString(ROOT.resolve("ops/postgres/init-roles.sql"));
        Map<String, Object> migrate = map(services.get("migrate"));
        String owner = String.valueOf(map(migrate.get("environment")).get("SAGA_DB_USER"));

        assertThat(list(migrate.get("command"))).containsExactly("migrate");
        assertThat(initSql).contains("ALTER DATABASE sagas OWNER TO " + owner, "ALTER SCHEMA public OWNER TO " + owner);
        for (String role : Main.ROLES) {
            Map<String, Object> service = map(services.get(role));
            Map<String, Object> env = map(service.get("environment"));
            if (role.equals("sandbox")) {
                // Its own database, which it owns, so it migrates it itself.
                assertThat(String.valueOf(env.get("SAGA_DB_URL"))).endsWith("/sandbox");
                assertThat(initSql).contains("CREATE DATABASE sandbox OWNER " + env.get("SAGA_DB_USER"));
                assertThat(env.get("SAGA_DB_MIGRATE")).isEqualTo("on");
            } else {
                assertThat(String.valueOf(env.get("SAGA_DB_URL"))).as(role).endsWith("/sagas");
                assertThat(env.get("SAGA_DB_MIGRATE")).as(role).isEqualTo("off");
                assertThat(map(map(service.get("depends_on")).get("migrate")))
                        .containsEntry("condition", "service_completed_successfully");
                // Never DDL: the product roles are members of the group that may connect and use the schema.
                assertThat(initSql).as(role).containsPattern("CREATE ROLE " + env.get("SAGA_DB_USER")
                        + " LOGIN PASSWORD \\S+ IN ROLE sagas_app;");
            }
        }
        assertThat(initSql).contains("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
    }

    @Test
    void shouldGrantEachRoleItsOwnTablesAfterEveryMigrationAndNoneByDefault() throws Exception {
        Map<String, Object> services = map(compose().get("services"));
        String initSql = Files.readString(ROOT.resolve("ops/postgres/init-roles.sql"));
        String grants = Files.readString(ROOT.resolve(DatabaseRoles.GRANTS));
        Map<String, Object> migrate = map(services.get("migrate"));

        // The migrate service applies grants.sql after the migrations, as the schema's owner
        assertThat(map(migrate.get("environment"))).containsEntry("SAGA_DB_GRANTS", "on")
                .containsEntry("SAGA_DB_USER", DatabaseRoles.OWNER);
        // No blanket privileges: neither for tables to come nor for every table there is
        assertThat(initSql).doesNotContain("ALTER DEFAULT PRIVILEGES").doesNotContain("GRANT SELECT");
        assertThat(grants).doesNotContainPattern("(?m)^GRANT [^;]* ON ALL ")
                .contains("REVOKE ALL ON ALL TABLES IN SCHEMA public");
        for (String role : DatabaseRoles.PRODUCT_ROLES) {
            // Each role logs in as the user grants.sql grants to, and ./sagas cluster makes the same one
            String user = String.valueOf(map(map(services.get(role)).get("environment")).get("SAGA_DB_USER"));
            assertThat(user).as(role).isEqualTo(DatabaseRoles.user(role));
            assertThat(grants).as(role).containsPattern("(?m)^GRANT [^;]* TO [^;]*\\b" + user + "\\b");
        }
    }

    @Test
    void shouldCreateEveryMountedDataDirectoryOwnedByTheImagesUser() throws Exception {
        Map<String, Object> services = map(compose().get("services"));
        List<String> lines = Files.readAllLines(ROOT.resolve("Dockerfile"));
        String finalStage = String.join("\n", productionStages(lines));
        String uid = user(lines).split(":")[0];

        for (String role : Main.ROLES) {
            for (Object volume : list(map(services.get(role)).getOrDefault("volumes", List.of()))) {
                String[] parts = String.valueOf(volume).split(":");
                if (parts[0].startsWith(".") || parts[0].startsWith("/")) {
                    continue; // a bind mount: the host's directory, not the image's
                }
                // A named volume starts as a copy of the image's directory: it must exist, the user's.
                assertThat(finalStage).as("%s mounts %s", role, parts[1])
                        .containsPattern("install -d -o " + uid + " -g \\d+ -m 7\\d\\d " + parts[1]);
            }
        }
    }

    @Test
    void shouldRunTheSandboxWithoutControlsAndItsLedgersBehindTheToken() throws Exception {
        Map<String, Object> services = map(compose().get("services"));
        String tokenFile = "/run/secrets/sandbox_ledger_token";

        assertThat(map(map(services.get("sandbox")).get("environment")))
                .containsEntry(SandboxSettings.CONTROLS.name(), "off")
                .containsEntry(SandboxSettings.LEDGER_TOKEN_FILE.name(), tokenFile);
        // Those that read the ledgers (the reconciler's puller, the console's order view) send it.
        for (String reader : List.of("reconciler", "api")) {
            assertThat(map(map(services.get(reader)).get("environment"))).as(reader)
                    .containsEntry(SandboxSettings.LEDGER_TOKEN_FILE.name(), tokenFile);
        }
        assertThat(Files.readString(ROOT.resolve("ops/make-secrets.sh"))).contains("sandbox_ledger_token");
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

    /**
     * The lines of the production image: the last stage (a plain {@code docker build}'s target),
     * preceded by the stages it is built {@code FROM}, as the image inherits them.
     */
    private static List<String> productionStages(List<String> lines) {
        List<String> stage = List.of();
        int end = lines.size();
        for (int i = lines.size() - 1; i >= 0; i--) {
            String line = lines.get(i).strip();
            if (!line.toUpperCase(Locale.ROOT).startsWith("FROM ")) {
                continue;
            }
            if (stage.isEmpty() || stage.get(0).strip().split("\\s+")[1].equals(line.replaceAll("(?i).* AS ", ""))) {
                List<String> joined = new ArrayList<>(lines.subList(i, end));
                joined.addAll(stage);
                stage = joined;
            }
            end = i;
        }
        return stage;
    }

    /** The last USER of the production image's stages: the one the container runs as. */
    private static String user(List<String> lines) {
        String user = null;
        for (String line : productionStages(lines)) {
            if (line.strip().toUpperCase(Locale.ROOT).startsWith("USER ")) {
                user = line.strip().substring(5).strip();
            }
        }
        assertThat(user).as("USER in the production image").isNotNull();
        return user;
    }

    private static Map<String, Object> compose() throws Exception {
        // SnakeYAML resolves anchors and merge keys (<<) as docker compose does.
        try (Reader reader = Files.newBufferedReader(ROOT.resolve("docker-compose.yml"))) {
            return new Yaml().load(reader);
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object o) {
        return (List<Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }
}
