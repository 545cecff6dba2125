package org.sagas.app.bench;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.sagas.app.ApiProtection;
import org.sagas.app.ConfigurationError;
import org.sagas.app.EmbeddedStack;
import org.sagas.app.Settings;

/** {@code ./sagas bench <name>}: each benchmark prints its figures and writes bench/results/<name>.json. */
public final class Benchmarks {
    private Benchmarks() {}

    public static int run(List<String> args, Map<String, String> flags, Settings settings, PrintStream out) {
        if (args.isEmpty()) {
            throw new ConfigurationError("bench needs a name: throughput, steady, overload, relay, cascade or reconcile");
        }
        Path resultFile = results(flags, args.get(0));
        long started = System.currentTimeMillis();
        MachineSpeed.Reading before = MachineSpeed.measure();
        int exit = runOne(args, flags, settings, out);
        try {
            if (exit == 0 && Files.exists(resultFile)
                    && Files.getLastModifiedTime(resultFile).toMillis() >= started - 1_000) {
                MachineSpeed.Reading after = MachineSpeed.measure();
                MachineSpeed.annotate(resultFile, before, after);
                out.printf("machine: the reference workload took %.1f ms of CPU before the run, %.1f after"
                        + " (docs/benchmarks.md, \"The machine in every result\")%n", before.cpuMs(), after.cpuMs());
            }
        } catch (java.io.IOException e) {
            out.println("could not add the machine's reading to " + resultFile + ": " + e);
        }
        return exit;
    }

    private static int runOne(List<String> args, Map<String, String> flags, Settings settings, PrintStream out) {
        try {
            switch (args.get(0)) {
                case "throughput":
                    new ThroughputBenchmark(out, intFlag(flags, "--orders", 20_000), intFlag(flags, "--concurrency", 32),
                            Duration.ofSeconds(intFlag(flags, "--duration", 30)),
                            flags.containsKey("--provider-latency-ms") ? intFlag(flags, "--provider-latency-ms", 0) : 0,
                            flags.containsKey("--warm-up"))
                            .run(benchSettings(settings), results(flags, "throughput"));
                    return 0;
                case "steady":
                    new SteadyBenchmark(out, intFlag(flags, "--rate", 100),
                            Duration.ofSeconds(intFlag(flags, "--duration", 12)), flags.containsKey("--warm-up"),
                            via(flags))
                            .run(benchSettings(settings), results(flags, "steady"));
                    return 0;
                case "overload":
                    new OverloadBenchmark(out, Duration.ofSeconds(intFlag(flags, "--duration", 60)))
                            .run(benchSettings(settings), results(flags, "overload"));
                    return 0;
                case "relay":
                    relay(settings, out, results(flags, "relay"));
                    return 0;
                case "reconcile":
                    new ReconcileBenchmark(out, intFlag(flags, "--events", 1_000_000))
                            .run(settings, results(flags, "reconcile"));
                    return 0;
                case "cascade":
                    new CascadeBenchmark(out, flags.containsKey("--warm-up"), via(flags)).run(benchSettings(settings), results(flags, "cascade"),
                            args.subList(1, args.size()));
                    return 0;
                default:
                    throw new ConfigurationError("unknown benchmark '" + args.get(0)
                            + "' (throughput, steady, overload, relay, cascade, reconcile)");
            }
        } catch (ConfigurationError e) {
            throw e;
        } catch (Exception e) {
            out.println("benchmark failed: " + e);
            return 1;
        }
    }

    /** How a benchmark's client sends its orders ({@code --via}, steady and cascade). */
    enum Via {
        /** {@code POST /orders}. */
        REST,
        /** {@code PlaceOrder} on {@code orders.commands}, the outcome read from {@code orders.events}. */
        KAFKA;

        static Via of(String flag) {
            for (Via v : values()) {
                if (v.name().equalsIgnoreCase(flag)) {
                    return v;
                }
            }
            throw new ConfigurationError("--via must be rest or kafka, was '" + flag + "'");
        }

        /** As the rows' {@code "via"} says it. */
        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    static Via via(Map<String, String> flags) {
        return Via.of(flags.getOrDefault("--via", "rest"));
    }

    /** The outbox relay on its own: a migrated database and a broker, embedded unless external ones are set. */
    private static void relay(Settings settings, PrintStream out, Path resultFile) throws Exception {
        try (EmbeddedStack stack = EmbeddedStack.scratch()) {
            Settings s = stack.start(settings, settings.embeddedDatabase(), settings.embeddedKafka());
            com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
            config.setJdbcUrl(s.dbUrl());
            config.setUsername(s.dbUser());
            config.setPassword(s.dbPassword().isEmpty() ? null : s.dbPassword());
            config.setMaximumPoolSize(32);
            try (com.zaxxer.hikari.HikariDataSource ds = new com.zaxxer.hikari.HikariDataSource(config)) {
                org.sagas.migrations.Migrations.apply(ds);
                org.sagas.relay.bench.RelayBenchmark.run(ds, s.kafkaBootstrap(), out,
                        resultFile, org.sagas.relay.bench.RelayBenchmark.Options.defaults());
            }
        }
    }

    /** Benchmarks bring their own product on free ports, so they never collide with a running one. */
    public static Settings benchSettings(Settings settings) {
        Map<String, String> env = new java.util.HashMap<>(settings.raw());
        env.put("SAGA_HTTP_PORT", "0");
        env.put("SAGA_INVENTORY_PORT", "0");
        env.put("SAGA_PAYMENT_PORT", "0");
        env.put("SAGA_FRAUD_PORT", "0");
        env.put("SAGA_ADMIN_PORT", "0");
        env.put("SAGA_INVENTORY_URL", "");
        env.put("SAGA_PAYMENT_URL", "");
        env.put("SAGA_FRAUD_URL", "");
        // The benchmarks drive one customer as fast as the machine allows: no per-client rate limit
        // unless one was asked for.
        if (env.get("SAGA_CLIENT_RATE").equals(ApiProtection.CLIENT_RATE.defaultValue())) {
            env.put("SAGA_CLIENT_RATE", "0");
        }
        return Settings.from(env::get, Map.of());
    }

    /**
     * Where a benchmark writes its results: {@code --results DIR} when given (the figures the README
     * quotes go to {@code bench/results}), else {@code target/bench-results}, outside tracked files.
     */
    static Path results(Map<String, String> flags, String name) {
        String dir = flags.get("--results");
        Path home = Path.of(System.getProperty("sagas.home", "."));
        return (dir != null ? home.resolve(dir) : home.resolve("target").resolve("bench-results")).resolve(name + ".json");
    }

    public static int intFlag(Map<String, String> flags, String name, int defaultValue) {
        String v = flags.get(name);
        if (v == null) {
            return defaultValue;
        }
        try {
            int n = Integer.parseInt(v);
            if (n < 1) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new ConfigurationError(name + " must be a positive integer (got '" + v + "')");
        }
    }
}
