package org.sagas.peers.saga;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.sagas.testkit.ThreadCpu;

/**
 * What the processes of a run had used at one moment: CPU of the engine's JVM (and of its threads
 * by group, {@link ThreadCpu}), its backends
 * (per {@link BackendSampler}), the engines' PostgreSQL as a whole (postmaster, the children it
 * reaped, those alive), the broker, the sandbox JVM and its PostgreSQL, the client's threads; and
 * the engine database's counters (transactions, rows written) with the server's WAL position.
 */
record Snapshot(long nanoTime, long engineJvm, Map<String, Duration> engineThreads,
        Map<Long, BackendSampler.Backend> backends, long enginesServer, long broker, long sandboxJvm, long sandboxServer,
        long client, long transactions, long rowsWritten, long walBytes) {
    /** The engine JVM's threads by the product's thread groups (another engine's are mostly "other"). */
    private static final ThreadCpu THREADS = new ThreadCpu();

    /** The pids a snapshot reads. */
    record Pids(long engineJvm, long enginesPostmaster, long broker, long sandboxJvm, long sandboxPostmaster) {}

    static Snapshot take(Pids pids, BackendSampler sampler, Connection monitor, String database) throws SQLException {
        Map<Long, BackendSampler.Backend> backends = sampler.snapshot();
        long transactions;
        long rows;
        long wal;
        try (PreparedStatement s = monitor.prepareStatement("SELECT xact_commit + xact_rollback,"
                + " tup_inserted + tup_updated + tup_deleted, pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint"
                + " FROM pg_stat_database WHERE datname = ?")) {
            s.setString(1, database);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                transactions = rs.getLong(1);
                rows = rs.getLong(2);
                wal = rs.getLong(3);
            }
        }
        return new Snapshot(System.nanoTime(), own(pids.engineJvm()), THREADS.read(pids.engineJvm()), backends,
                tree(pids.enginesPostmaster()),
                own(pids.broker()), own(pids.sandboxJvm()), tree(pids.sandboxPostmaster()), clientThreads(),
                transactions, rows, wal);
    }

    /** The postmaster, the children it has reaped, and those alive. */
    static long tree(long postmaster) {
        long total = Math.max(0, ProcStat.ownNanos(postmaster)) + Math.max(0, ProcStat.reapedChildrenNanos(postmaster));
        for (ProcessHandle child : ProcessHandle.of(postmaster).map(p -> p.children().toList()).orElse(List.of())) {
            total += Math.max(0, ProcStat.ownNanos(child.pid()));
        }
        return total;
    }

    private static long own(long pid) {
        return pid <= 0 ? 0 : Math.max(0, ProcStat.ownNanos(pid));
    }

    /** The client's threads and the HTTP client's selector. */
    private static long clientThreads() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long total = 0;
        for (ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (info != null && (info.getThreadName().startsWith(OpenLoopClient.THREADS)
                    || info.getThreadName().startsWith("HttpClient-"))) {
                total += Math.max(0, mx.getThreadCpuTime(info.getThreadId()));
            }
        }
        return total;
    }
}
