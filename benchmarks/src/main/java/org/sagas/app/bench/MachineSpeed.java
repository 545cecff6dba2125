package org.sagas.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.sagas.orchestrator.Json;

/**
 * How fast this machine is, read in the same run as a benchmark's figures: a fixed reference
 * workload (hashing, JSON written and read back, sorting: the kinds of work an order costs) timed
 * on one thread of the benchmark's own JVM, before the product starts and after it stopped. A
 * figure divided by the reference tells a slow machine from a slow product (docs/benchmarks.md,
 * "The machine in every result"). The JIT options are the benchmark JVM's, so compare readings of
 * {@code ./sagas bench} runs only. Stateless.
 */
public final class MachineSpeed {
    /** Times the workload runs; the fastest counts (the first runs include compiling it). */
    static final int RUNS = 5;

    /** The fastest of {@link #RUNS} runs: thread CPU and wall time, in milliseconds. */
    public record Reading(double cpuMs, double wallMs) {}

    /** The last run's result, kept where the JIT cannot prove nobody reads it. */
    private static volatile long checksum;

    private MachineSpeed() {}

    /** Runs the reference workload {@link #RUNS} times on this thread and keeps the fastest. */
    public static Reading measure() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double bestCpu = Double.MAX_VALUE;
        double bestWall = Double.MAX_VALUE;
        for (int i = 0; i < RUNS; i++) {
            long cpu = threads.getCurrentThreadCpuTime();
            long wall = System.nanoTime();
            checksum = workload();
            bestWall = Math.min(bestWall, (System.nanoTime() - wall) / 1e6);
            bestCpu = Math.min(bestCpu, (threads.getCurrentThreadCpuTime() - cpu) / 1e6);
        }
        return new Reading(round(bestCpu), round(bestWall));
    }

    /**
     * The reference workload: the same work on every machine and every call (its result is a
     * checksum of it, the same each time).
     */
    static long workload() {
        long sum = 0;
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] block = new byte[16 * 1024];
            new SplittableRandom(7).nextBytes(block);
            for (int i = 0; i < 200; i++) {
                sha.update(block);
            }
            sum += Arrays.hashCode(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
        List<Map<String, Object>> orders = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < 400; i++) {
            Map<String, Object> order = new LinkedHashMap<>();
            order.put("customerId", "c-" + random.nextInt(1000));
            order.put("currency", "EUR");
            order.put("lines", List.of(Map.of("sku", "SKU-" + random.nextInt(100), "quantity", 1 + random.nextInt(5),
                    "unitPriceCents", random.nextInt(100_000))));
            orders.add(order);
        }
        try {
            for (int i = 0; i < 10; i++) {
                byte[] text = Json.mapper().writeValueAsBytes(orders);
                JsonNode back = Json.mapper().readTree(text);
                sum += back.size() + text.length;
            }
        } catch (IOException e) {
            throw new IllegalStateException("JSON in memory cannot fail", e);
        }
        int[] numbers = new SplittableRandom(13).ints(200_000).toArray();
        Arrays.sort(numbers);
        return sum + numbers[numbers.length / 2];
    }

    /**
     * Adds what {@code before} and {@code after} read to a benchmark's result file: to the object, or
     * to each object row of an array, as {@code machine}; and beside each
     * {@code product_cpu_ms_per_order} that figure in reference runs
     * ({@code product_cpu_per_order_in_reference_runs}, against {@code before}).
     */
    public static void annotate(Path resultFile, Reading before, Reading after) throws IOException {
        if (!Files.exists(resultFile)) {
            return;
        }
        JsonNode results = Json.mapper().readTree(resultFile.toFile());
        if (results instanceof ArrayNode rows) {
            rows.forEach(row -> annotate(row, before, after));
        } else {
            annotate(results, before, after);
        }
        Files.writeString(resultFile, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(results),
                StandardCharsets.UTF_8);
    }

    private static void annotate(JsonNode node, Reading before, Reading after) {
        if (!(node instanceof ObjectNode row)) {
            return;
        }
        ObjectNode machine = row.putObject("machine");
        machine.put("reference_cpu_ms_before", before.cpuMs());
        machine.put("reference_wall_ms_before", before.wallMs());
        machine.put("reference_cpu_ms_after", after.cpuMs());
        machine.put("reference_wall_ms_after", after.wallMs());
        machine.put("cores", Runtime.getRuntime().availableProcessors());
        machine.put("java", System.getProperty("java.version"));
        JsonNode cost = row.get("product_cpu_ms_per_order");
        if (cost != null && cost.isNumber() && before.cpuMs() > 0) {
            row.put("product_cpu_per_order_in_reference_runs", Math.round(cost.asDouble() / before.cpuMs() * 1000)
                    / 1000.0);
        }
    }

    private static double round(double ms) {
        return Math.round(ms * 10) / 10.0;
    }
}
