package org.sagas.peers.saga;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time of a Linux process from {@code /proc/<pid>/stat}: its own (user + system) and that of
 * the children it has waited for (a postmaster reaps every backend and autovacuum worker, so their
 * CPU survives them there). Ticks of 10 ms ({@code getconf CLK_TCK} is 100 on Linux/x86-64).
 */
final class ProcStat {
    private static final long NANOS_PER_TICK = 10_000_000L;

    private ProcStat() {}

    /** User + system CPU of {@code pid}, in nanoseconds; -1 when the process is gone. */
    static long ownNanos(long pid) {
        long[] fields = fields(pid);
        return fields == null ? -1 : (fields[0] + fields[1]) * NANOS_PER_TICK;
    }

    /** User + system CPU of the children {@code pid} has reaped, in nanoseconds; -1 when gone. */
    static long reapedChildrenNanos(long pid) {
        long[] fields = fields(pid);
        return fields == null ? -1 : (fields[2] + fields[3]) * NANOS_PER_TICK;
    }

    /** utime, stime, cutime, cstime (fields 14-17), or null. */
    private static long[] fields(long pid) {
        String stat;
        try {
            stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        } catch (IOException e) {
            return null;
        }
        // The command name (field 2) may hold spaces; fields after it start past its closing ')'.
        String[] rest = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return new long[] {Long.parseLong(rest[11]), Long.parseLong(rest[12]), Long.parseLong(rest[13]),
                Long.parseLong(rest[14])};
    }
}
