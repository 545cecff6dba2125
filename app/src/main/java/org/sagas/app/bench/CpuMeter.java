package org.sagas.app.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * CPU time spent by the processes a benchmark runs on one machine: this JVM (the product, its
 * sandboxes and the load generator), PostgreSQL (the postmaster and every process under it) and
 * the embedded broker (the JVMs this one started: the broker is the only one). Read from the operating system
 * through {@link ProcessHandle}; a process that exits between two readings loses its share, which
 * is why readings are taken while the processes live. Not thread-safe.
 */
public final class CpuMeter {
    private final long postmasterPid;

    /**
     * @param postgresBackendPid any PostgreSQL backend's pid ({@code SELECT pg_backend_pid()}); a
     *     database on another machine (no local postgres process with that pid) counts as zero
     */
    public CpuMeter(long postgresBackendPid) {
        this.postmasterPid = ProcessHandle.of(postgresBackendPid)
                .filter(p -> p.info().command().map(c -> c.endsWith("postgres")).orElse(false))
                .flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(-1L);
    }

    /**
     * CPU time used so far, by group: {@code jvm}, {@code postgres}, {@code kafka}, and the JVM's
     * share split by thread: {@code jvm_<group>} for each group {@code threadGroup} names (threads
     * it maps to null count in {@code jvm_product}) and {@code jvm_runtime}, what no Java thread
     * accounts for (the JIT compilers, the garbage collector, threads that ended).
     */
    public Map<String, Duration> read(Function<String, String> threadGroup) {
        Map<String, Duration> used = new LinkedHashMap<>();
        Duration jvm = cpu(ProcessHandle.current());
        used.put("jvm", jvm);
        Duration threads = Duration.ZERO;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        for (ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
            long nanos = info == null ? -1 : mx.getThreadCpuTime(info.getThreadId());
            if (nanos > 0) {
                String group = threadGroup.apply(info.getThreadName());
                used.merge("jvm_" + (group == null ? "product" : group), Duration.ofNanos(nanos), Duration::plus);
                threads = threads.plusNanos(nanos);
            }
        }
        used.put("jvm_runtime", jvm.minus(threads));
        used.put("postgres", ProcessHandle.of(postmasterPid)
                .map(pm -> sum(Stream.concat(Stream.of(pm), pm.descendants()))).orElse(Duration.ZERO));
        used.put("kafka", sum(ProcessHandle.current().descendants().filter(CpuMeter::isJava)));
        return used;
    }

    /** What each group used between two readings. */
    public static Map<String, Duration> between(Map<String, Duration> before, Map<String, Duration> after) {
        Map<String, Duration> used = new LinkedHashMap<>();
        after.forEach((group, total) -> used.put(group, total.minus(before.getOrDefault(group, Duration.ZERO))));
        return used;
    }

    private static boolean isJava(ProcessHandle p) {
        // The arguments are not always readable (a long class path truncates them); the command is.
        return p.info().command().map(c -> c.endsWith("/java")).orElse(false);
    }

    private static Duration sum(Stream<ProcessHandle> processes) {
        return processes.map(CpuMeter::cpu).reduce(Duration.ZERO, Duration::plus);
    }

    private static Duration cpu(ProcessHandle p) {
        Optional<Duration> total = p.info().totalCpuDuration();
        return total.orElse(Duration.ZERO);
    }
}
