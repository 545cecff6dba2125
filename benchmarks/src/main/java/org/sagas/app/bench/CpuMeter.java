package org.sagas.app.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * CPU time spent by the processes of a benchmark on one machine, by group: named JVMs (the
 * product, the sandbox participants, the client, the broker: each a process of its own), and
 * PostgreSQL's processes, each backend in the group its {@code application_name} says (read by the
 * caller from {@code pg_stat_activity}), everything else PostgreSQL runs (WAL writer,
 * checkpointer, autovacuum, processes that ended) in {@code postgres_shared}. Read from the
 * operating system ({@code /proc} through {@link ProcessHandle}). Not thread-safe.
 */
public final class CpuMeter {
    /** The group of PostgreSQL work no backend of a benchmark's processes accounts for. */
    public static final String SHARED = "postgres_shared";

    private final ProcessHandle postmaster;
    private final Map<String, ProcessHandle> jvms;
    private final long clockTicksPerSecond = org.sagas.testkit.ThreadCpu.clockTicks();

    /**
     * @param postgresBackendPid any PostgreSQL backend's pid ({@code SELECT pg_backend_pid()}); a
     *     database on another machine (no local process with that pid) counts as zero
     * @param jvms the processes to account, by group name
     */
    public CpuMeter(long postgresBackendPid, Map<String, ProcessHandle> jvms) {
        this.postmaster = ProcessHandle.of(postgresBackendPid)
                .filter(p -> p.info().command().map(c -> c.endsWith("postgres")).orElse(false))
                .flatMap(ProcessHandle::parent).orElse(null);
        this.jvms = new LinkedHashMap<>(jvms);
    }

    /** The CPU used so far: each JVM's, each PostgreSQL process's and the postmaster's. */
    public Reading read() {
        Map<String, Duration> byJvm = new LinkedHashMap<>();
        jvms.forEach((group, process) -> byJvm.put(group, cpu(process)));
        Map<Long, Duration> byPid = new HashMap<>();
        Duration postmasterOwn = Duration.ZERO;
        Duration reaped = Duration.ZERO;
        if (postmaster != null) {
            postmasterOwn = cpu(postmaster);
            reaped = reapedChildren(postmaster.pid());
            postmaster.descendants().forEach(p -> byPid.put(p.pid(), cpu(p)));
        }
        return new Reading(byJvm, byPid, postmasterOwn, reaped);
    }

    /**
     * What each group used between two readings: the JVMs by name, PostgreSQL backends as
     * {@code postgres_<group>} by {@code backendGroups} (pid to group; other pids are shared), and
     * {@value #SHARED}: the postmaster, its other processes and those that ended meanwhile.
     */
    public static Map<String, Duration> between(Reading before, Reading after, Map<Long, String> backendGroups) {
        Map<String, Duration> used = new LinkedHashMap<>();
        after.byJvm().forEach((group, total) -> used.put(group, total.minus(before.byJvm().getOrDefault(group,
                Duration.ZERO))));
        Duration shared = after.postmaster().minus(before.postmaster());
        // A process that ended is counted whole in the postmaster's reaped children; take off what
        // it had used before the first reading.
        shared = shared.plus(after.reaped().minus(before.reaped()));
        for (Map.Entry<Long, Duration> gone : before.byPid().entrySet()) {
            if (!after.byPid().containsKey(gone.getKey())) {
                shared = shared.minus(gone.getValue());
            }
        }
        for (Map.Entry<Long, Duration> p : after.byPid().entrySet()) {
            Duration delta = p.getValue().minus(before.byPid().getOrDefault(p.getKey(), Duration.ZERO));
            String group = backendGroups.get(p.getKey());
            if (group == null) {
                shared = shared.plus(delta);
            } else {
                used.merge("postgres_" + group, delta, Duration::plus);
            }
        }
        used.put(SHARED, shared.isNegative() ? Duration.ZERO : shared);
        return used;
    }

    /** CPU totals at one moment. */
    public record Reading(Map<String, Duration> byJvm, Map<Long, Duration> byPid, Duration postmaster,
            Duration reaped) {}

    private static Duration cpu(ProcessHandle p) {
        Optional<Duration> total = p.info().totalCpuDuration();
        return total.orElse(Duration.ZERO);
    }

    /** The CPU of a process's children that ended and were waited for (Linux: cutime + cstime). */
    private Duration reapedChildren(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
            // Fields after the command (which may hold spaces, in parentheses): state is field 3.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(f[13]) + Long.parseLong(f[14]); // fields 16 and 17: cutime, cstime
            return Duration.ofNanos(ticks * 1_000_000_000L / clockTicksPerSecond);
        } catch (IOException | RuntimeException e) {
            return Duration.ZERO;
        }
    }

}
