package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.sagas.app.cli.AdminCli;
import org.sagas.embedded.FreePorts;
import org.sagas.testkit.RealInfrastructure;

/**
 * {@code ./sagas admin} driven as a person would, against the running product:
 * tables, {@code --json}, {@code --help} per verb, and clear errors for an unreachable API, a bad
 * token and a refused action (409 with the current state), with their exit codes.
 */
@RealInfrastructure
class AdminCliIT extends GameDayLifecycle {

    @Override
    Map<String, String> settings() {
        return AdminHttp.SETTINGS;
    }

    /** What one CLI run printed and returned. */
    record Run(int code, String out, String err) {}

    @Test
    void shouldFindInspectAndRetryAnOrderFromTheTerminal() {
        // Given an order parked on inventory
        String customer = "c-cli-" + UUID.randomUUID().toString().substring(0, 8);
        String sku = Submissions.sku();
        product.stock(sku, 2);
        product.inventoryFaults(GameDay.INVENTORY_DOWN);
        UUID id = TestProduct.orderId(product.submit(Submissions.key(), TestProduct.order(customer, sku, 1, 250)));
        product.healthy();

        // When a person lists the customer's pending orders, looks at one, and retries it
        Run list = cli("sagas", "--customer", customer, "--status", "PENDING_CONFIRMATION");
        Run show = cli("saga", id.toString());
        Run retry = cli("retry", id.toString(), "--reason", "inventory back");
        Run json = cli("sagas", "--customer", customer, "--json");

        // Then each answers as a table, and the retry says what the order is now
        assertThat(list.code()).as(list.err()).isZero();
        assertThat(list.out().lines().findFirst()).hasValueSatisfying(h -> assertThat(h).startsWith("ORDER_ID")
                .contains("STATUS", "CUSTOMER_ID", "PARKED_ON"));
        assertThat(list.out()).contains(id.toString(), "PENDING_CONFIRMATION", "inventory");
        assertThat(show.code()).as(show.err()).isZero();
        assertThat(show.out()).contains("order " + id, "history", "parked on inventory", "inventory reservations",
                "payment charges", "operator actions");
        assertThat(retry.code()).as(retry.err()).isZero();
        assertThat(retry.out()).startsWith("APPLIED: order " + id + " is now ");
        assertThat(json.code()).isZero();
        assertThat(TestProduct.read(json.out()).get("items").findValuesAsText("orderId")).containsExactly(id.toString());
        product.awaitStatus(id, "CONFIRMED", GameDay.SETTLE);

        // And a refused action says why, with the current state, and exits 1
        Run refused = cli("cancel", id.toString(), "--reason", "too late");
        assertThat(refused.code()).isEqualTo(1);
        assertThat(refused.err()).contains("409", "CONFIRMED", "current state: CONFIRMED (COMPLETED at CHARGE_PAYMENT");
        Run audit = cli("audit", "--target", id.toString());
        assertThat(audit.out()).contains("retry", "APPLIED", "inventory back", "cancel", "REFUSED", "too late");
    }

    @Test
    void shouldDryRunStartAndFollowABatch() {
        String customer = "c-clib-" + UUID.randomUUID().toString().substring(0, 8);
        String sku = Submissions.sku();
        product.stock(sku, 3);
        product.inventoryFaults(GameDay.INVENTORY_DOWN);
        for (int i = 0; i < 3; i++) {
            product.submit(Submissions.key(), TestProduct.order(customer, sku, 1, 10));
        }
        product.healthy();

        Run dry = cli("batch", "start", "--action", "retry", "--customer", customer, "--status",
                "PENDING_CONFIRMATION", "--dry-run");
        Run start = cli("batch", "start", "--action", "retry", "--customer", customer, "--status",
                "PENDING_CONFIRMATION", "--rate", "10", "--reason", "outage over");

        assertThat(dry.code()).as(dry.err()).isZero();
        assertThat(dry.out()).startsWith("dry run: 3 sagas match");
        assertThat(start.code()).as(start.err()).isZero();
        String batchId = start.out().lines().findFirst().orElseThrow().split(" ")[1];
        org.awaitility.Awaitility.await().atMost(GameDay.SETTLE).until(() ->
                cli("batch", "show", batchId).out().contains("COMPLETED  3 of 3 done"));
        assertThat(cli("batch", "list").out()).contains(batchId);
        assertThat(cli("batch", "stop", batchId).err()).contains("409", "only a running batch can be stopped");
    }

    @Test
    void shouldListIncidentsAndDeadLetters() {
        assertThat(cli("incidents").code()).isZero();
        Run outbox = cli("dead-letters", "outbox");
        assertThat(outbox.code()).as(outbox.err()).isZero();
        assertThat(outbox.out()).contains("outbox rows dead-lettered");
        Run kafka = cli("dead-letters", "kafka");
        assertThat(kafka.out()).contains("TOPIC", "payments.commands.dlt", "payments.events.dlt");
        Run missing = cli("dead-letters", "outbox", "replay", "987654321");
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.err()).contains("404");
    }

    @Test
    void shouldSayClearlyWhenTheApiIsUnreachableOrTheTokenWrongOrTheCommandLine() {
        Run unreachable = cli(Map.of("SAGA_ADMIN_URL", "http://127.0.0.1:" + FreePorts.find()), "sagas");
        Run badToken = cli(Map.of("SAGA_ADMIN_TOKEN", "not-a-token"), "sagas");
        Run viewer = cli(Map.of("SAGA_ADMIN_TOKEN", TestProduct.VIEWER_TOKEN), "retry", UUID.randomUUID().toString());
        Run unknownVerb = cli("launch");
        Run unknownOption = cli("sagas", "--colour", "red");
        Run missingWord = cli("saga");

        assertThat(unreachable.code()).isEqualTo(3);
        assertThat(unreachable.err()).contains("cannot reach the operator API at http://127.0.0.1:", "SAGA_ADMIN_URL");
        assertThat(badToken.code()).isEqualTo(1);
        assertThat(badToken.err()).contains("401", "SAGA_ADMIN_TOKEN");
        assertThat(viewer.code()).isEqualTo(1);
        assertThat(viewer.err()).contains("403", "viewer");
        assertThat(unknownVerb.code()).isEqualTo(2);
        assertThat(unknownVerb.err()).contains("unknown verb 'launch'");
        assertThat(unknownOption.code()).isEqualTo(2);
        assertThat(unknownOption.err()).contains("unknown option --colour");
        assertThat(missingWord.code()).isEqualTo(2);
        assertThat(missingWord.err()).contains("usage: ./sagas admin saga ORDER_ID");
    }

    @Test
    void shouldExplainEachVerbWithHelp() {
        for (String verb : List.of("whoami", "sagas", "saga", "retry", "cancel", "resolve-payment", "batch",
                "incidents", "dead-letters", "audit")) {
            Run help = cli(verb, "--help");
            assertThat(help.code()).as(verb).isZero();
            assertThat(help.out()).as(verb).startsWith("usage: ./sagas admin " + verb);
        }
        Run all = cli("--help");
        assertThat(all.out()).contains("resolve-payment", "dead-letters", "SAGA_ADMIN_URL", "exit codes");
    }

    @Test
    void shouldRunFromTheLauncherWithTheEnvironmentsUrlAndToken() throws Exception {
        // The real entry point in a process of its own: ./sagas admin whoami
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path"), Main.class.getName(), "admin", "whoami"));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().keySet().removeIf(k -> k.startsWith("SAGA_"));
        builder.environment().put("SAGA_ADMIN_URL", product.admin("").toString());
        builder.environment().put("SAGA_ADMIN_TOKEN", TestProduct.OLGA_TOKEN);
        Process process = builder.start();
        String output;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            output = r.lines().collect(Collectors.joining("\n"));
        }
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        assertThat(output).isEqualTo("olga (operator), may write");
        // And a token file (as ./sagas up writes one) works in its place
        Path file = Files.createTempFile("admin-token", "");
        Files.writeString(file, TestProduct.VIEWER_TOKEN + "\n");
        assertThat(cli("whoami", "--token-file", file.toString()).out()).contains("victor (viewer), read only");
        Files.delete(file);
    }

    private Run cli(String... args) {
        return cli(Map.of(), args);
    }

    private Run cli(Map<String, String> overrides, String... args) {
        Map<String, String> env = new HashMap<>(env());
        env.putAll(overrides);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = AdminCli.run(args, env::get, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static Map<String, String> env() {
        return Map.of("SAGA_ADMIN_URL", product.admin("").toString(), "SAGA_ADMIN_TOKEN", TestProduct.OPERATOR_TOKEN);
    }
}
