package org.sagas.app;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.sagas.app.cli.AdminCli;
import org.sagas.app.cli.EventsCli;

/**
 * {@code ./sagas}: runs the whole product on its embedded default ({@code up}), one role for
 * scale-out, or a benchmark. Bad configuration ends with one line naming the problem and a
 * non-zero exit.
 */
public final class Main {
    static final List<String> ROLES = Role.labels(java.util.EnumSet.allOf(Role.class));
    private static final Set<String> VALUE_FLAGS = Set.of("--data-dir", "--port", "--inventory-port",
            "--payment-port", "--fraud-port", "--host", "--orders", "--concurrency", "--duration", "--rate", "--config",
            "--provider-latency-ms", "--seconds", "--url", "--seed", "--api-key", "--admin-port", "--events",
            "--each", "--brokers", "--results", "--via", "--out", "--runs");
    /** Flags without a value. */
    private static final Set<String> SWITCHES = Set.of("--warm-up");

    private Main() {}

    public static void main(String[] args) {
        int code = run(args, System.out, System.err);
        if (code >= 0) {
            System.exit(code);
        }
    }

    /** Runs a command; returns the exit code, or -1 for a command that keeps running (a server). */
    static int run(String[] args, PrintStream out, PrintStream err) {
        if (Runtime.version().feature() < 17) {
            err.println("sagas: error: Java 17 or newer is required (this is " + Runtime.version() + ")");
            return 2;
        }
        if (args.length > 0 && args[0].equals("admin")) {
            // The CLI has options of its own (see ./sagas admin --help).
            return AdminCli.run(java.util.Arrays.copyOfRange(args, 1, args.length), System::getenv, out, err);
        }
        if (args.length > 0 && args[0].equals("events")) {
            // Options of its own (see ./sagas events --help).
            return EventsCli.run(java.util.Arrays.copyOfRange(args, 1, args.length), System::getenv, out, err);
        }
        if (args.length > 0 && args[0].equals("check")) {
            return check(java.util.Arrays.copyOfRange(args, 1, args.length), System::getenv, out, err);
        }
        List<String> positional = new ArrayList<>();
        Map<String, String> flags = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--help") || a.equals("-h") || a.equals("help")) {
                help(out);
                return 0;
            }
            if (SWITCHES.contains(a)) {
                flags.put(a, "true");
            } else if (a.startsWith("--")) {
                String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
                if (!VALUE_FLAGS.contains(name)) {
                    err.println("sagas: error: unknown option " + name + " (see ./sagas --help)");
                    return 2;
                }
                if (a.contains("=")) {
                    flags.put(name, a.substring(a.indexOf('=') + 1));
                } else if (i + 1 < args.length) {
                    flags.put(name, args[++i]);
                } else {
                    err.println("sagas: error: option " + name + " needs a value");
                    return 2;
                }
            } else {
                positional.add(a);
            }
        }
        if (positional.isEmpty()) {
            help(out);
            return 2;
        }
        String command = positional.get(0);
        try {
            Settings settings = Settings.from(System::getenv, flags);
            switch (command) {
                case "up":
                    return serve(Product.up(settings, out));
                case "cluster":
                    return serve(Cluster.start(settings, Cluster.Shape.from(flags, settings), out));
                case "chaos":
                    return Chaos.run(flags, settings, out);
                case "settings":
                    out.print(Settings.reference());
                    return 0;
                case "kafka-access":
                    return KafkaAccess.setUp(settings, out);
                case "migrate":
                    if (settings.embeddedDatabase()) {
                        throw new ConfigurationError("migrate runs on an external PostgreSQL: set SAGA_DB_URL"
                                + " (./sagas up migrates its embedded one itself)");
                    }
                    out.println("sagas: schema migrated (" + Node.migrateOnly(settings) + " migrations applied now)");
                    if (settings.grants()) {
                        DatabaseRoles.applyGrants(settings);
                        out.println("sagas: each product role's grants applied (" + DatabaseRoles.GRANTS + ")");
                    }
                    return 0;
                case "bench":
                case "fuzz":
                    return LauncherCommand.find(command).orElseThrow(() -> new ConfigurationError("./sagas " + command
                            + " needs the benchmarks module (benchmarks-*.jar on the class path), which the product's"
                            + " image leaves out: run it from a checkout")).run(positional.subList(1, positional.size()),
                                    flags, settings, out);
                default:
                    java.util.Optional<Set<Role>> roles = Role.parse(List.of(command.split(",", -1)));
                    if (roles.isPresent()) {
                        return serve(Product.roles(roles.get(), settings, out));
                    }
                    err.println("sagas: error: unknown command '" + command + "' (see ./sagas --help)");
                    return 2;
            }
        } catch (ConfigurationError e) {
            err.println("sagas: error: " + e.getMessage());
            return 1;
        }
    }

    /**
     * {@code ./sagas check}, with options of its own (see ./sagas check --help), against the product
     * the settings in {@code env} describe.
     */
    static int check(String[] args, java.util.function.Function<String, String> env, PrintStream out,
            PrintStream err) {
        return org.sagas.app.check.CheckCommand.run(args, () -> CheckTargets.of(Settings.from(env, Map.of())), out,
                err);
    }

    /** Blocks until SIGINT/SIGTERM; the shutdown hook stops everything that was started. */
    private static int serve(AutoCloseable running) {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                running.close();
            } catch (Exception e) {
                System.err.println("sagas: error while stopping: " + e);
            } finally {
                stopped.countDown();
            }
        }, "sagas-stop"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return -1;
    }

    private static void help(PrintStream out) {
        out.println("usage: ./sagas <command> [options]");
        out.println();
        out.println("commands:");
        out.println("  up                  run the whole product on embedded PostgreSQL and Kafka (or on");
        out.println("                      SAGA_DB_URL / SAGA_KAFKA_BOOTSTRAP when set), sandbox included");
        out.println("  cluster             the product as a cluster on this machine: embedded PostgreSQL, a KRaft");
        out.println("                      cluster of 3 brokers (replication 3, min.insync.replicas 2), each role");
        out.println("                      in processes of its own behind a round-robin front on --port, a sandbox;");
        out.println("                      brokers require sign-in (SCRAM, ACLs per role; <data dir>/kafka-credentials)");
        out.println("                      [--each N] (processes of each role, default 2) [--brokers N] [--data-dir DIR]");
        out.println("  chaos               orders against a cluster while faults drawn from a seed kill -9 and pause");
        out.println("                      role processes, kill brokers, crash PostgreSQL, take inventory down, slow");
        out.println("                      the provider; then the checker; writes its results (JSON) to --out FILE,");
        out.println("                      by default <data dir>/chaos-<seed>.json or target/bench-results/chaos-<seed>.json");
        out.println("                      [--seed N] [--duration S] [--rate N] [--each N] [--out FILE]");
        out.println("  <role>[,<role>...]  run these roles in one process, for scale-out: " + String.join(", ", ROLES));
        out.println("  settings            print the configuration reference (docs/configuration.md)");
        out.println("  kafka-access        on a Kafka that authenticates: create the topics, each role's user and");
        out.println("                      its ACLs (SAGA_KAFKA_USER a super user, SAGA_KAFKA_ROLE_CREDENTIALS_DIR)");
        out.println("  migrate             apply pending schema migrations on SAGA_DB_URL as its owner, then exit");
        out.println("                      (for roles started with SAGA_DB_MIGRATE=off, docs/operations.md)");
        out.println("  bench throughput    orders/s to CONFIRMED and CPU, transactions, rows, WAL per order;");
        out.println("                      product, sandbox and client each in a process of its own, cold start");
        out.println("                      [--orders N] [--concurrency N] [--duration S] [--warm-up]");
        out.println("                      [--provider-latency-ms N] (the sandbox provider's answer time)");
        out.println("  bench steady        a cold product at a steady 100 orders/s from a separate client,");
        out.println("                      inventory at 40 ms, one hot SKU then spread SKUs");
        out.println("                      [--rate N] [--duration S] [--warm-up] [--via rest|kafka] (kafka: PlaceOrder");
        out.println("                      commands, command-to-outcome latency and the consumer's lag)");
        out.println("  bench overload      past capacity: a cold product's capacity, then open-loop 0.5, 1, 2, 3 x it");
        out.println("                      (1,000 customers, hot SKU then spread), then 0.5 x: goodput, 503s, p99");
        out.println("                      [--duration S] (each step, default 60)");
        out.println("  bench relay         outbox relay drain rate and commit-to-ack latency");
        out.println("  bench cascade       the resilience lesson's cascade, under each protection level,");
        out.println("                      each on a cold product [--warm-up] [--via rest|kafka] [CONFIG ...]");
        out.println("                      (kafka: PlaceOrder commands, command-to-outcome latency and the");
        out.println("                      consumer's lag; CONFIG e.g. full-degraded-mode runs only that one)");
        out.println("  bench reconcile     the reconciliation topology over N replayed order events, 1 % discrepant");
        out.println("                      [--events N] (default 1000000)");
        out.println("                      each bench writes target/bench-results/<name>.json, or into --results DIR");
        out.println("  fuzz                hostile requests at the API, each must be a 4xx storing nothing");
        out.println("                      [--seconds N] [--seed N] [--url http://host:port [--api-key K]]");
        out.println("                      (without --url it starts its own product)");
        out.println("  check               the invariants against a running product (SAGA_DB_URL, SAGA_KAFKA_BOOTSTRAP,");
        out.println("                      the ledgers): a table, exit 0 all hold, 1 one failed, 2 unreachable");
        out.println("                      [--settle S] [--outbox-age S] [--json FILE] [--order ID] (check --help)");
        out.println("  events <verb>       the message contracts: docs (print docs/events.md), tail (orders.events");
        out.println("                      one line per event), place (an order through orders.commands, its");
        out.println("                      outcome printed) (events --help)");
        out.println("  admin <verb>        the operator CLI over the operator API: sagas, saga, retry, cancel,");
        out.println("                      resolve-payment, batch, incidents, dead-letters, audit (admin --help)");
        out.println();
        out.println("options:");
        out.println("  --data-dir DIR      keep embedded data here between runs (default: a fresh temp dir)");
        out.println("  --port N            API port; --inventory-port N, --payment-port N for the sandbox");
        out.println("  --host ADDR         address to bind (default 127.0.0.1)");
        out.println("  --admin-port N      operator API port (default 8090; SAGA_ADMIN_HOST for its address)");
        out.println();
        out.println("settings (environment):");
        Settings.describe().forEach(out::println);
    }
}
