package org.sagas.app.bench;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.sagas.app.ConfigurationError;
import org.sagas.app.EmbeddedStack;
import org.sagas.app.Flags;
import org.sagas.app.Settings;

/** {@code ./sagas bench <name>}: each benchmark prints its figures and writes bench/results/<name>.json. */
public final class Benchmarks {
    private Benchmarks() {}

    public static int run(List<String> args, Map<String, String> flags, Settings settings, PrintStream out) {
        if (args.isEmpty()) {
            throw new ConfigurationError("bench needs a name: throughput, steady, overload, relay, cascade or reconcile");
        }
        String name = args.get(0);
        int runs = Flags.positiveInt(flags, "--runs", 1);
        if (runs == 1) {
            return runMeasured(args, flags, settings, out, results(flags, name));
        }
        // A headline is the median of several cold runs: each run starts its own product, writes its
        // own file, and every run is listed, failed ones too (docs/benchmarks.md, "Headlines").
        List<RunSeries.Run> done = new java.util.ArrayList<>();
        for (int i = 1; i <= runs; i++) {
            out.printf("%n=== %s: cold run %d of %d ===%n", name, i, runs);
            Path file = results(flags, name + "-run-" + i);
            int exit;
            try {
                Files.deleteIfExists(file); // a file left by an earlier series must not pass for this run's
            } catch (java.io.IOException e) {
                throw new ConfigurationError("cannot replace " + file + ": " + e.getMessage(), e);
            }
            try {
                exit = runMeasured(args, flags, settings, out, file);
            } catch (ConfigurationError e) {
                throw e;
            } catch (RuntimeException e) {
                out.println("run " + i + " failed: " + e);
                exit = 1;
            }
            done.add(new RunSeries.Run(i, exit, file));
        }
        RunSeries series = RunSeries.of(name, done);
        Path summary = results(flags, name + "-runs");
        series.write(summary);
        series.print(out);
        out.println("every run and the medians: " + summary);
        return series.failed() == runs ? 1 : 0;
    }

    /** One run, its result annotated with the machine's speed read before and after it. */
    private static int runMeasured(List<String> args, Map<String, String> flags, Settings settings, PrintStream out,
            Path resultFile) {
        long started = System.currentTimeMillis();
        MachineSpeed.Reading before = MachineSpeed.measure();
        int exit = runOne(args, flags, settings, out, resultFile);
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

    private static int runOne(List<String> args, Map<String, String> flags, Settings settings, PrintStream out,
            Path resultFile) {
        try {
            switch (args.get(0)) {
                case "throughput":
                    new ThroughputBenchmark(out, Flags.positiveInt(flags, "--orders", 20_000), Flags.positiveInt(flags, "--concurrency", 32),
                            Duration.ofSeconds(Flags.positiveInt(flags, "--duration", 30)),
                            flags.containsKey("--provider-latency-ms") ? Flags.positiveInt(flags, "--provider-latency-ms", 0) : 0,
                            flags.containsKey("--warm-up"))
                            .run(settings.forOwnProduct(), resultFile);
                    return 0;
                case "steady":
                    new SteadyBenchmark(out, Flags.positiveInt(flags, "--rate", 100),
                            Duration.ofSeconds(Flags.positiveInt(flags, "--duration", 12)), flags.containsKey("--warm-up"),
                            via(flags))
                            .run(settings.forOwnProduct(), resultFile);
                    return 0;
                case "overload":
                    new OverloadBenchmark(out, Duration.ofSeconds(Flags.positiveInt(flags, "--duration", 60)))
                            .run(settings.forOwnProduct(), resultFile);
                    return 0;
                case "relay":
                    relay(settings, out, resultFile);
                    return 0;
                case "reconcile":
                    new ReconcileBenchmark(out, Flags.positiveInt(flags, "--events", 1_000_000))
                            .run(settings, resultFile);
                    return 0;
                case "cascade":
                    new CascadeBenchmark(out, flags.containsKey("--warm-up"), via(flags)).run(settings.forOwnProduct(), resultFile,
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

    /**
     * Where a benchmark writes its results: {@code --results DIR} when given (the figures the README
     * quotes go to {@code bench/results}), else {@code target/bench-results}, outside tracked files.
     */
    static Path results(Map<String, String> flags, String name) {
        String dir = flags.get("--results");
        Path home = Path.of(System.getProperty("sagas.home", "."));
        return (dir != null ? home.resolve(dir) : home.resolve("target").resolve("bench-results")).resolve(name + ".json");
    }

}
