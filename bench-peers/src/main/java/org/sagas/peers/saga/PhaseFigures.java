package org.sagas.peers.saga;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A phase's figures for one contender. Per order means per order that reached a final state in
 * the phase. CPU counts from the first order due until the last one final; PostgreSQL's counters
 * until 1.5 s later (PostgreSQL 14 publishes a backend's counters at most every 500 ms), less the
 * benchmark's own queries on the contender's database. The engine JVM's CPU by thread group uses
 * the product's groups ({@link org.sagas.testkit.ThreadCpu}); another engine's threads are mostly
 * "other" there, and threads that ended within the phase are not counted.
 */
record PhaseFigures(String phase, double offeredRate, int sent, int accepted, Map<String, Integer> refused, int notSent,
        Map<String, Integer> finals, int notFinal, double ordersPerSecond, double submitP50Ms, double submitP99Ms,
        double finalP50Ms, double finalP99Ms, Cpu cpu, Db db, double windowSeconds, double loadAverage,
        Map<String, Double> engineJvmByThreadGroup) {

    /** CPU ms per order, by process group. */
    record Cpu(double engineJvm, double engineBackends, double broker, double pgBackground, double participants,
            double client) {
        /** The engine's: its JVM, its PostgreSQL backends, the broker where used. */
        double engine() {
            return engineJvm + engineBackends + broker;
        }

        /** Orders/s this machine's cores would allow if they did nothing but the engine's work. */
        double cpuBoundRate() {
            double ms = engine();
            return ms > 0 ? Runtime.getRuntime().availableProcessors() * 1000 / ms : 0;
        }
    }

    /** PostgreSQL work per order on the contender's database (transactions, rows) and server (WAL). */
    record Db(double transactions, double rowsWritten, double walKb) {}

    /** Requests answered otherwise than 202, or not at all ({@code none}). */
    int refusedCount() {
        return refused.values().stream().mapToInt(Integer::intValue).sum();
    }

    int finalCount() {
        return finals.values().stream().mapToInt(Integer::intValue).sum();
    }

    Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("phase", phase);
        m.put("offered_orders_per_second", offeredRate);
        m.put("orders_sent", sent);
        m.put("orders_accepted", accepted);
        m.put("orders_refused_by_status", new TreeMap<>(refused));
        m.put("orders_not_sent", notSent);
        m.put("final_states", new TreeMap<>(finals));
        m.put("orders_not_final", notFinal);
        m.put("orders_per_second", r1(ordersPerSecond));
        m.put("submit_p50_ms", r1(submitP50Ms));
        m.put("submit_p99_ms", r1(submitP99Ms));
        m.put("final_p50_ms", r1(finalP50Ms));
        m.put("final_p99_ms", r1(finalP99Ms));
        m.put("cpu_ms_per_order", r2(cpu.engine()));
        m.put("cpu_bound_orders_per_second", r1(cpu.cpuBoundRate()));
        m.put("cpu_ms_per_order_engine_jvm", r2(cpu.engineJvm()));
        Map<String, Double> groups = new LinkedHashMap<>();
        engineJvmByThreadGroup.forEach((group, ms) -> groups.put(group, r2(ms)));
        m.put("cpu_ms_per_order_engine_jvm_by_thread_group", groups);
        m.put("cpu_ms_per_order_engine_pg_backends", r2(cpu.engineBackends()));
        m.put("cpu_ms_per_order_broker", r2(cpu.broker()));
        m.put("cpu_ms_per_order_pg_background", r2(cpu.pgBackground()));
        m.put("cpu_ms_per_order_participants", r2(cpu.participants()));
        m.put("cpu_ms_per_order_client", r2(cpu.client()));
        m.put("pg_transactions_per_order", r2(db.transactions()));
        m.put("rows_per_order", r2(db.rowsWritten()));
        m.put("pg_wal_kb_per_order", r2(db.walKb()));
        m.put("window_seconds", r1(windowSeconds));
        m.put("load_average_1m", r2(loadAverage));
        return m;
    }

    /** The {@code p}-th percentile (0-100) of {@code values}; 0 when empty. */
    static double percentile(List<Double> values, double p) {
        if (values.isEmpty()) {
            return 0;
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    static double r1(double v) {
        return Math.round(v * 10) / 10.0;
    }

    static double r2(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
