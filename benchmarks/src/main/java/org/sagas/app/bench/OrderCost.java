package org.sagas.app.bench;

import java.time.Duration;
import java.util.Map;

/**
 * What one confirmed order cost, by who spent it (docs/design.md, "Performance targets"): the product (its JVM,
 * its PostgreSQL backends, its share of PostgreSQL's shared work, the broker), the participants
 * (the sandbox's JVM and backends, their share) and the client (its JVM and backends); with
 * PostgreSQL transactions, rows written and WAL of the product's and the participants' databases.
 *
 * <p>PostgreSQL's shared work (WAL writer, checkpointer, autovacuum, processes that ended) and the
 * WAL no statement accounts for are apportioned between product and participants in proportion to
 * the WAL their statements wrote (see {@link DbCounters#walWithShare}).
 */
public final class OrderCost {
    private final Map<String, Duration> cpu;
    private final DbCounters db;
    private final long clientTransactions;
    private final long orders;
    private final String productDb;
    private final String sandboxDb;

    /**
     * @param cpu {@link CpuMeter#between} over the measurement
     * @param db {@link DbCounters} growth over the same window
     * @param clientTransactions statements the client itself ran on the product's database meanwhile
     * @param orders confirmed orders
     * @param productDb the product's database; {@code sandboxDb} the participants'
     */
    public OrderCost(Map<String, Duration> cpu, DbCounters db, long clientTransactions, long orders, String productDb,
            String sandboxDb) {
        this.productDb = productDb;
        this.sandboxDb = sandboxDb;
        this.cpu = cpu;
        this.db = db;
        this.clientTransactions = clientTransactions;
        this.orders = orders;
    }

    /** Adds the figures to {@code r} (nothing without confirmed orders). */
    public void into(Map<String, Object> r) {
        if (orders == 0) {
            return;
        }
        long productWal = db.walWithShare(productDb, productDb, sandboxDb);
        long sandboxWal = db.walWithShare(sandboxDb, productDb, sandboxDb);
        double productShare = productWal + sandboxWal == 0 ? 1.0 : (double) productWal / (productWal + sandboxWal);
        double shared = ms("postgres_shared");
        double productPg = ms("postgres_product") + shared * productShare;
        double product = ms("product_jvm") + productPg + ms("broker");
        double participants = ms("sandbox_jvm") + ms("postgres_sandbox") + shared * (1 - productShare);
        double client = ms("client_jvm") + ms("postgres_client");

        r.put("product_cpu_ms_per_order", round(product));
        r.put("product_cpu_ms_per_order_jvm", round(ms("product_jvm")));
        r.put("product_cpu_ms_per_order_postgres", round(productPg));
        r.put("product_cpu_ms_per_order_postgres_backends", round(ms("postgres_product")));
        r.put("product_cpu_ms_per_order_broker", round(ms("broker")));
        r.put("product_transactions_per_order",
                round((double) (db.transactions(productDb) - clientTransactions) / orders));
        r.put("product_rows_per_order", round((double) db.rowsWritten(productDb) / orders));
        r.put("product_wal_bytes_per_order", Math.round((double) productWal / orders));
        r.put("product_statement_wal_bytes_per_order",
                Math.round((double) db.statementWal().getOrDefault(productDb, 0L) / orders));
        r.put("participants_cpu_ms_per_order", round(participants));
        r.put("participants_cpu_ms_per_order_jvm", round(ms("sandbox_jvm")));
        r.put("participants_cpu_ms_per_order_postgres", round(participants - ms("sandbox_jvm")));
        r.put("participants_transactions_per_order", round((double) db.transactions(sandboxDb) / orders));
        r.put("participants_rows_per_order", round((double) db.rowsWritten(sandboxDb) / orders));
        r.put("participants_wal_bytes_per_order", Math.round((double) sandboxWal / orders));
        r.put("client_cpu_ms_per_order", round(client));
        r.put("postgres_shared_cpu_ms_per_order", round(shared));
        r.put("postgres_shared_product_share", round(productShare * 100) / 100.0);
        // The figures of earlier runs, over every process of the machine together.
        double jvms = ms("product_jvm") + ms("sandbox_jvm") + ms("client_jvm");
        double postgres = ms("postgres_product") + ms("postgres_sandbox") + ms("postgres_client") + shared;
        r.put("cpu_ms_per_order_jvm", round(jvms));
        r.put("cpu_ms_per_order_postgres", round(postgres));
        r.put("cpu_ms_per_order_kafka", round(ms("broker")));
        r.put("pg_transactions_per_order", round((double) (db.transactions(productDb)
                + db.transactions(sandboxDb) - clientTransactions) / orders));
        r.put("pg_rows_written_per_order", round((double) (db.rowsWritten(productDb)
                + db.rowsWritten(sandboxDb)) / orders));
        r.put("pg_wal_kb_per_order", round(db.clusterWal() / 1024.0 / orders));
        int cores = Runtime.getRuntime().availableProcessors();
        r.put("cores", cores);
        r.put("cpu_bound_orders_per_second", round(cores * 1000 / (jvms + postgres + ms("broker"))));
        r.put("product_cpu_bound_orders_per_second", round(cores * 1000 / product));
    }

    private double ms(String group) {
        Duration d = cpu.get(group);
        return d == null ? 0 : d.toNanos() / 1e6 / orders;
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }
}
