package org.sagas.peers.saga;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.sagas.embedded.EmbeddedPostgresServer;
import org.sagas.migrations.Migrations;

/**
 * One engine in the comparison: how its JVM is started, on which database of the engines' server,
 * how its readiness and port show, how it is prepared (its schema created) before its cold start,
 * and how its sagas' final states are read from its own tables: a query taking the order ids
 * (a {@code text[]}) and answering {@code (order id, final state or null, epoch ms of the final
 * transition)}. Final states: {@code CONFIRMED}, {@code CANCELLED}, {@code REJECTED},
 * {@code TIMED_OUT} (peers only), {@code ERROR} (a saga that failed: never valid).
 */
record Contender(String name, String label, String database, String classPath, List<String> mainAndArgs,
        List<String> properties, Map<String, String> env, Pattern ready, boolean usesBroker, boolean probesTimeout,
        String finalStates) {
    /** The application_name of the benchmark's own connections, never counted as an engine's. */
    static final String HARNESS = "peers-harness";
    private static final Pattern PEER_READY = Pattern.compile("peer listening on port (\\d+)");
    private static final Duration PREPARE_TIMEOUT = Duration.ofSeconds(180);

    /** What every contender is started with: the same servers, pool size and sandbox services. */
    record Setting(EmbeddedPostgresServer engines, String bootstrapServers, String appClassPath,
            String peersClassPath, int poolSize, String inventoryUrl, String paymentUrl, String ledgerToken, Path logs) {
        String jdbcUrl(String database, String applicationName) {
            return engines.jdbcUrl(database) + "?ApplicationName=" + applicationName;
        }
    }

    /** The product, every role in one process ({@code ./sagas up}) on the external servers and sandbox. */
    static Contender sagas(Setting s) {
        String db = "peers_sagas";
        Map<String, String> env = new LinkedHashMap<>();
        env.put("SAGA_DB_URL", s.jdbcUrl(db, "peers-sagas"));
        env.put("SAGA_DB_USER", EmbeddedPostgresServer.USER);
        env.put("SAGA_DB_PASSWORD", EmbeddedPostgresServer.PASSWORD);
        env.put("SAGA_KAFKA_BOOTSTRAP", s.bootstrapServers());
        env.put("SAGA_DB_POOL_SIZE", Integer.toString(s.poolSize()));
        env.put("SAGA_INVENTORY_URL", s.inventoryUrl());
        env.put("SAGA_PAYMENT_URL", s.paymentUrl());
        // Its reconciler pulls the sandbox's ledgers, as ./sagas up's does: without the token every
        // pull is refused and every confirmed order becomes a finding (work no peer does).
        env.put("SAGA_SANDBOX_LEDGER_TOKEN", s.ledgerToken());
        // Free ports: the API's is read from its output; the product's own sandbox idles on the others.
        env.put("SAGA_HTTP_PORT", "0");
        env.put("SAGA_INVENTORY_PORT", "0");
        env.put("SAGA_PAYMENT_PORT", "0");
        env.put("SAGA_FRAUD_PORT", "0");
        env.put("SAGA_ADMIN_PORT", "0");
        // The same limits for every contender: the peers limit no client, so neither does the product
        // (its SAGA_CLIENT_RATE of 50 a client refused a sixth of one customer's 60 orders/s).
        env.put("SAGA_CLIENT_RATE", "0");
        return new Contender("sagas", "sagas (this product, ./sagas up)", db, s.appClassPath(),
                List.of("org.sagas.app.Main", "up"), List.of(), env,
                Pattern.compile("orders API\\s+http://[^:]+:(\\d+)/orders"), true, false,
                "SELECT order_id::text, CASE WHEN status IN ('CONFIRMED', 'CANCELLED', 'REJECTED') THEN status END,"
                        + " (extract(epoch FROM updated_at) * 1000)::bigint FROM orders"
                        + " WHERE order_id = ANY(?::uuid[])");
    }

    static Contender dbos(Setting s) {
        String db = "peers_dbos";
        return new Contender("dbos", "DBOS Transact 1.1.0-m6", db, s.peersClassPath(),
                List.of("org.sagas.peers.saga.dbos.DbosOrders"), peerProperties(), peerEnv(s, db, "peers-dbos"),
                PEER_READY, false, true,
                "SELECT workflow_uuid, CASE status WHEN 'SUCCESS' THEN btrim(output, '\"')"
                        + " WHEN 'ERROR' THEN 'ERROR' WHEN 'CANCELLED' THEN 'ERROR' END, updated_at"
                        + " FROM dbos.workflow_status WHERE workflow_uuid = ANY(?)");
    }

    static Contender flowable(Setting s) {
        String db = "peers_flowable";
        return new Contender("flowable", "Flowable 7.2.0 (history audit, async executor)", db, s.peersClassPath(),
                List.of("org.sagas.peers.saga.flowable.FlowableOrders"), peerProperties(),
                peerEnv(s, db, "peers-flowable"), PEER_READY, false, true,
                "SELECT business_key_, CASE end_act_id_ WHEN 'confirmed' THEN 'CONFIRMED'"
                        + " WHEN 'cancelled' THEN 'CANCELLED' WHEN 'timedOut' THEN 'TIMED_OUT'"
                        + " WHEN 'rejected' THEN 'REJECTED' END, (extract(epoch FROM end_time_) * 1000)::bigint"
                        + " FROM act_hi_procinst WHERE business_key_ = ANY(?)");
    }

    /**
     * Creates the contender's schema before its cold start, so that the start measures serving,
     * not schema creation: the product's migrations applied from here (the product only checks
     * them at start), a peer's own {@code prepare} run in a JVM of its own.
     */
    void prepare(Setting s) throws Exception {
        if (name.equals("sagas")) {
            try (var pool = new HikariDataSource()) {
                pool.setJdbcUrl(s.jdbcUrl(database, HARNESS));
                pool.setUsername(EmbeddedPostgresServer.USER);
                pool.setPassword(EmbeddedPostgresServer.PASSWORD);
                pool.setMaximumPoolSize(2); // Flyway takes a second one for its lock
                Migrations.apply(pool);
            }
            return;
        }
        List<String> prepare = new ArrayList<>(mainAndArgs);
        prepare.add("prepare");
        ChildJvm.runToEnd(name + "-prepare", classPath, prepare, properties, env,
                s.logs().resolve(name + "-prepare.log"), PREPARE_TIMEOUT);
    }

    private static List<String> peerProperties() {
        return List.of("-Dlogback.configurationFile=saga-peers-logback.xml");
    }

    private static Map<String, String> peerEnv(Setting s, String database, String applicationName) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PEER_DB_URL", s.jdbcUrl(database, applicationName));
        env.put("PEER_DB_USER", EmbeddedPostgresServer.USER);
        env.put("PEER_DB_PASSWORD", EmbeddedPostgresServer.PASSWORD);
        env.put("PEER_POOL_SIZE", Integer.toString(s.poolSize()));
        env.put("PEER_INVENTORY_URL", s.inventoryUrl());
        env.put("PEER_PAYMENT_URL", s.paymentUrl());
        return env;
    }
}
