package org.sagas.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU time of one JVM's threads by group, read from {@code /proc/<pid>/task/<tid>/stat} (Linux;
 * elsewhere, nothing): the request path, the engine's jobs, the consumers, the Kafka producer, the
 * relay, the reconciler, the sandboxes, the participants' HTTP client, GC, the JIT compilers and
 * the rest. A thread's group comes from its name, as the kernel keeps it (15 characters). Threads
 * that ended between two readings are lost from both: compare readings of long-lived threads.
 * Read by the product's benchmarks and by bench-peers, so both name the same groups. Not
 * thread-safe.
 */
public final class ThreadCpu {
    /** Groups in report order, each with the name prefixes of its threads. */
    private static final List<Map.Entry<String, List<String>>> GROUPS = List.of(
            Map.entry("api", List.of("api-", "api", "readiness", "Scheduler-")),
            Map.entry("engine", List.of("parked-resume", "step-timeouts", "parked-expiry", "order-gauges",
                    "idempotency-ret", "inbox-retention", "payment-reconc", "incident-gauge", "finding-gauges",
                    "scheduling-lag", "sagas-stop", "retention", "stalled-compen", "admin-batches")),
            // Kafka's heartbeat threads are cut to "kafka-coordinat" by the kernel.
            Map.entry("consumers", List.of("consumer-", "payment-charge", "kafka-coordinat")),
            Map.entry("producer", List.of("kafka-producer")),
            Map.entry("relay", List.of("outbox-relay")),
            Map.entry("reconciler", List.of("sagas-reconcile", "ledger-puller", "kafka-streams")),
            Map.entry("sandboxes", List.of("inventory-http", "payment-http", "inventory-sand", "payment-sandbo")),
            Map.entry("http_client", List.of("HttpClient")),
            Map.entry("gc", List.of("GC Thread", "G1 ")),
            Map.entry("jit", List.of("C1 Compiler", "C2 Compiler")),
            Map.entry("database_pool", List.of("HikariPool", "Hikari")));

    private final long clockTicksPerSecond = clockTicks();

    /** CPU used so far by the threads of {@code pid} alive now, by group (every group present, "other" last). */
    public Map<String, Duration> read(long pid) {
        Map<String, Duration> groups = new LinkedHashMap<>();
        GROUPS.forEach(g -> groups.put(g.getKey(), Duration.ZERO));
        groups.put("other", Duration.ZERO);
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                try {
                    String stat = Files.readString(task.resolve("stat"), StandardCharsets.US_ASCII);
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14 and 15: utime, stime
                    groups.merge(group(name), Duration.ofNanos(ticks * 1_000_000_000L / clockTicksPerSecond),
                            Duration::plus);
                } catch (IOException | RuntimeException gone) {
                    // The thread ended while being read.
                }
            }
        } catch (IOException | RuntimeException e) {
            // No /proc here: nothing to report.
        }
        return groups;
    }

    /** What each group used between two readings of the same process. */
    public static Map<String, Duration> between(Map<String, Duration> before, Map<String, Duration> after) {
        Map<String, Duration> used = new LinkedHashMap<>();
        after.forEach((group, total) -> {
            Duration d = total.minus(before.getOrDefault(group, Duration.ZERO));
            used.put(group, d.isNegative() ? Duration.ZERO : d);
        });
        return used;
    }

    /** The kernel's clock ticks per second ({@code getconf CLK_TCK}), 100 when it cannot be asked. */
    public static long clockTicks() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            p.waitFor();
            return Long.parseLong(out);
        } catch (IOException | RuntimeException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }

    static String group(String threadName) {
        for (Map.Entry<String, List<String>> g : GROUPS) {
            for (String prefix : g.getValue()) {
                if (threadName.startsWith(prefix)) {
                    return g.getKey();
                }
            }
        }
        return "other";
    }
}
