package org.sagas.peers.saga;

import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.sagas.embedded.EmbeddedPostgresServer;
import org.sagas.embedded.FreePorts;
import org.sagas.peers.saga.peer.SandboxClient;

/**
 * The orders saga on the product and on its peers (DBOS Transact, Flowable), interleaved over
 * rounds (A B C, then C B A, ...: drift on a shared machine weighs on each alike) in one run:
 * {@code SagaPeersBenchmark [resultFile]} (default {@code target/bench-results/saga-peers.json}, outside tracked files;
 * {@code bench-peers/run-sagas.sh} builds and starts it). Every contender runs in a JVM of its own
 * with the same options, on a database of its own on the same PostgreSQL, with the same pool size,
 * against the same sandbox services (a JVM of their own, on a PostgreSQL of their own), driven by
 * the same open-loop client (in this JVM, its threads measured apart). Settings (system
 * properties): {@code peers.rate} orders/s offered (default 60), {@code peers.cold.seconds} (10)
 * and {@code peers.warmed.seconds} (20) of load, {@code peers.decline.rate} (0.05: the share of
 * charges the provider declines, so that every contender compensates too), {@code peers.contenders}
 * (default {@code sagas,dbos,flowable}), {@code peers.rounds} (2), {@code peers.closed.seconds} (20; 0: no
 * closed-loop phase) and {@code peers.closed.clients} (16), {@code peers.pool.size} (8, the product's default),
 * {@code peers.app.classpath} (the product's jar and libraries; also the broker's class path) and
 * {@code peers.logs} (where the JVMs' output goes).
 */
public final class SagaPeersBenchmark {
    private static final Duration WARM_UP = Duration.ofSeconds(10);

    private SagaPeersBenchmark() {}

    public static void main(String[] args) throws Exception {
        Path resultFile = Path.of(args.length > 0 ? args[0] : "target/bench-results/saga-peers.json");
        PrintStream out = System.out;
        ContenderRun.Options options = new ContenderRun.Options(Double.parseDouble(property("peers.rate", "60")),
                Duration.ofSeconds(Long.parseLong(property("peers.cold.seconds", "10"))),
                Duration.ofSeconds(Long.parseLong(property("peers.warmed.seconds", "20"))),
                Duration.ofSeconds(Long.parseLong(property("peers.closed.seconds", "20"))),
                Integer.parseInt(property("peers.closed.clients", "16")));
        int rounds = Integer.parseInt(property("peers.rounds", "2"));
        if (rounds < 1) {
            throw new IllegalArgumentException("peers.rounds must be at least 1, was " + rounds);
        }
        double declineRate = Double.parseDouble(property("peers.decline.rate", "0.05"));
        int poolSize = Integer.parseInt(property("peers.pool.size", "8"));
        List<String> names = List.of(property("peers.contenders", "sagas,dbos,flowable").split(","));
        String appClassPath = required("peers.app.classpath");
        Path logs = Path.of(property("peers.logs", "bench-peers/target/saga-logs"));
        Files.createDirectories(logs);
        out.printf("saga peers: %d cores, load average %.2f at start; %s; %.0f orders/s offered, %d s cold + %d s"
                + " warmed each; pool %d; provider declines %.0f %%%n", Runtime.getRuntime().availableProcessors(),
                ContenderRun.loadAverage(), Runtime.version(), options.rate(), options.cold().toSeconds(),
                options.warmed().toSeconds(), poolSize, declineRate * 100);
        out.println("starting PostgreSQL (engines), PostgreSQL (sandbox) and the Kafka broker...");
        SagaTable table = new SagaTable();
        Map<String, Object> run = new LinkedHashMap<>();
        try (Servers servers = Servers.start(appClassPath)) {
            stopOnExit(servers);
            servers.participants.createDatabase("sandbox");
            int inventoryPort = FreePorts.find();
            int paymentPort = FreePorts.find();
            // The benchmark stocks SKUs, sets the decline rate and reads the ledgers: controls on, a token.
            String ledgerToken = java.util.UUID.randomUUID().toString();
            Map<String, String> sandboxEnv = Map.of(
                    "SAGA_DB_URL", servers.participants.jdbcUrl("sandbox") + "?ApplicationName=peers-sandbox",
                    "SAGA_DB_USER", EmbeddedPostgresServer.USER, "SAGA_DB_PASSWORD", EmbeddedPostgresServer.PASSWORD,
                    "SAGA_HTTP_PORT", "0", "SAGA_ADMIN_PORT", "0",
                    "SAGA_INVENTORY_PORT", Integer.toString(inventoryPort),
                    "SAGA_PAYMENT_PORT", Integer.toString(paymentPort), "SAGA_FRAUD_PORT", "0",
                    "SAGA_SANDBOX_CONTROLS", "on", "SAGA_SANDBOX_LEDGER_TOKEN", ledgerToken);
            out.println("starting the sandbox services (./sagas sandbox, a JVM of their own)...");
            try (ChildJvm sandbox = ChildJvm.start("sandbox", appClassPath, List.of("org.sagas.app.Main", "sandbox"),
                    List.of(), sandboxEnv, logs.resolve("sandbox.log"), Pattern.compile("sandbox is up"),
                    Duration.ofSeconds(120)); OpenLoopClient client = new OpenLoopClient()) {
                String inventoryUrl = "http://127.0.0.1:" + inventoryPort;
                String paymentUrl = "http://127.0.0.1:" + paymentPort;
                Ledger ledger = new Ledger(URI.create(inventoryUrl), URI.create(paymentUrl), ledgerToken);
                ledger.setDeclineRate(declineRate);
                WarmUp.run(ledger, new SandboxClient(URI.create(inventoryUrl),
                        URI.create(paymentUrl)), servers.broker.bootstrapServers(), WARM_UP, out);
                Contender.Setting setting = new Contender.Setting(servers.engines, servers.broker.bootstrapServers(),
                        appClassPath, System.getProperty("java.class.path"), poolSize, inventoryUrl, paymentUrl, ledgerToken, logs);
                run.put("started_at", Instant.now().toString());
                run.put("cores", Runtime.getRuntime().availableProcessors());
                run.put("jdk", Runtime.version().toString());
                run.put("jvm_options", ChildJvm.JVM_OPTIONS);
                run.put("load_average_1m_at_start", PhaseFigures.r2(ContenderRun.loadAverage()));
                run.put("offered_orders_per_second", options.rate());
                run.put("cold_seconds", options.cold().toSeconds());
                run.put("warmed_seconds", options.warmed().toSeconds());
                run.put("closed_seconds", options.closed().toSeconds());
                run.put("closed_clients", options.closedClients());
                run.put("rounds", rounds);
                run.put("per_client_rate_limit", "none (the product's SAGA_CLIENT_RATE=0; the peers have none)");
                run.put("pool_size", poolSize);
                run.put("decline_rate", declineRate);
                run.put("synchronous_commit", servers.setting("synchronous_commit"));
                run.put("postgresql", servers.setting("server_version"));
                List<String> order = new java.util.ArrayList<>();
                for (int round = 1; round <= rounds; round++) {
                    List<String> inRound = new java.util.ArrayList<>(names);
                    if (round % 2 == 0) {
                        java.util.Collections.reverse(inRound);
                    }
                    for (String name : inRound) {
                        order.add(name.trim() + " r" + round);
                        Contender contender = switch (name.trim()) {
                            case "sagas" -> Contender.sagas(setting);
                            case "dbos" -> Contender.dbos(setting);
                            case "flowable" -> Contender.flowable(setting);
                            default -> throw new IllegalArgumentException("unknown contender " + name);
                        };
                        table.add(new ContenderRun(contender, round, servers, setting, ledger, client, sandbox.pid(),
                                out).run(options));
                    }
                }
                run.put("order_run", order);
                run.put("load_average_1m_at_end", PhaseFigures.r2(ContenderRun.loadAverage()));
            }
        }
        out.printf("%norders saga side by side (%.0f orders/s offered by an open-loop client; %d s cold, then %d s"
                + " warmed; then %d closed-loop clients for %d s; %d rounds, interleaved; per order reaching a final"
                + " state); load average %.2f at end:%n%n", options.rate(), options.cold().toSeconds(),
                options.warmed().toSeconds(), options.closedClients(), options.closed().toSeconds(), rounds,
                ContenderRun.loadAverage());
        table.print(out);
        table.write(resultFile, run);
        out.println("written to " + resultFile.toAbsolutePath());
        System.exit(0);
    }

    /** Interrupted (Ctrl-C), the run still stops what it started: the JVMs, then the servers. */
    private static void stopOnExit(Servers servers) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            ChildJvm.killAll();
            servers.close();
        }, "peers-stop"));
    }

    private static String property(String name, String fallback) {
        return System.getProperty(name, fallback);
    }

    private static String required(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("-D" + name + " is required (see bench-peers/run-sagas.sh)");
        }
        return value;
    }
}
