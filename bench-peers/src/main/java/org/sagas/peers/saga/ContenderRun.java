package org.sagas.peers.saga;

import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.sagas.peers.saga.peer.OrderRequest;
import org.sagas.testkit.ThreadCpu;

/**
 * One contender's part of the run: its engine JVM started cold, a cold phase at the offered rate,
 * the timeout probe (peers: orders whose payment answer is lost, which must end
 * {@code TIMED_OUT} with the stock released and the charge refunded), a warmed phase, a closed-loop
 * phase (as many orders as {@code closedClients} clients can send, each waiting for its answer), the
 * engine stopped, then the sandbox ledger checked for all its orders. Not thread-safe.
 */
final class ContenderRun {
    static final int SKUS = 100;
    static final int STOCK_PER_SKU = 1_000_000;
    private static final Duration FINAL_WAIT = Duration.ofSeconds(120);
    private static final Duration PROBE_WAIT = Duration.ofSeconds(60);
    private static final int PROBE_ORDERS = 3;
    private static final long PROBE_TIMEOUT_MS = 2000;

    /** The options every contender runs with. */
    record Options(double rate, Duration cold, Duration warmed, Duration closed, int closedClients) {}

    /** What the run produced for one contender. */
    record Result(Contender contender, int round, PhaseFigures cold, PhaseFigures warmed, PhaseFigures closed,
            Map<String, Integer> probe, double startSeconds, Map<String, Double> rowsByTable, List<String> problems) {
        /** The phases run, in order (the closed-loop one only when it ran). */
        List<PhaseFigures> phases() {
            return closed == null ? List.of(cold, warmed) : List.of(cold, warmed, closed);
        }
    }

    private final Contender contender;
    private final Servers servers;
    private final Contender.Setting setting;
    private final Ledger ledger;
    private final OpenLoopClient client;
    private final long sandboxPid;
    private final PrintStream out;
    private final Map<String, String> allStates = new HashMap<>();
    private final int round;

    ContenderRun(Contender contender, int round, Servers servers, Contender.Setting setting, Ledger ledger,
            OpenLoopClient client, long sandboxPid, PrintStream out) {
        this.contender = contender;
        this.round = round;
        this.servers = servers;
        this.setting = setting;
        this.ledger = ledger;
        this.client = client;
        this.sandboxPid = sandboxPid;
        this.out = out;
    }

    Result run(Options options) throws Exception {
        out.printf("%n== %s, round %d ==%n", contender.label(), round);
        servers.freshDatabase(servers.engines, contender.database());
        out.println("  preparing its schema (not timed)...");
        contender.prepare(setting);
        // SKUs of their own each round: a round's check counts only its own orders' reservations.
        String skuPrefix = contender.name().toUpperCase() + "-R" + round + "-";
        for (int i = 0; i < SKUS; i++) {
            ledger.setStock(skuPrefix + i, STOCK_PER_SKU);
        }
        List<String> problems = new ArrayList<>();
        long sandboxPostmaster;
        try (Connection sandboxDb = Servers.connect(servers.participants, "postgres")) {
            sandboxPostmaster = postmaster(sandboxDb);
        }
        PhaseFigures cold;
        PhaseFigures warmed;
        PhaseFigures closed = null;
        Map<String, Integer> probe = Map.of();
        double startSeconds;
        Map<String, Long> tablesBefore;
        try (Connection db = Servers.connect(servers.engines, contender.database())) {
            tablesBefore = TableWrites.read(db);
        }
        try (Connection monitor = Servers.connect(servers.engines, "postgres");
                BackendSampler sampler = new BackendSampler(monitor);
                FinalStates states = new FinalStates(Servers.connect(servers.engines, contender.database()),
                        contender)) {
            long started = System.nanoTime();
            try (ChildJvm engine = startEngine()) {
                startSeconds = (System.nanoTime() - started) / 1e9;
                out.printf("  started in %.1f s (pid %d, log %s)%n", startSeconds, engine.pid(),
                        setting.logs().resolve(contender.name() + ".log"));
                URI api = URI.create("http://127.0.0.1:" + engine.ready() + "/orders");
                Snapshot.Pids pids = new Snapshot.Pids(engine.pid(), postmaster(monitor),
                        contender.usesBroker() ? servers.broker.pid() : -1, sandboxPid, sandboxPostmaster);
                Phase phase = new Phase(pids, sampler, monitor, states, problems);
                cold = phase.run("cold", new OpenLoopClient.Load(api, "peers-cold", options.rate(), options.cold(),
                        skuPrefix, SKUS, Map.of()), 0);
                if (contender.probesTimeout()) {
                    probe = probe(api, states, skuPrefix, problems);
                }
                warmed = phase.run("warmed", new OpenLoopClient.Load(api, "peers-warmed", options.rate(),
                        options.warmed(), skuPrefix, SKUS, Map.of()), 0);
                if (!options.closed().isZero()) {
                    closed = phase.run("closed", new OpenLoopClient.Load(api, "peers-closed", 0, options.closed(),
                            skuPrefix, SKUS, Map.of()), options.closedClients());
                }
                if (!engine.alive()) {
                    problems.add("the engine's JVM died during the run");
                }
                out.println("  stopping the engine...");
            }
        }
        Thread.sleep(1000); // the engine's backends report their counters as they exit
        Map<String, Double> rowsByTable;
        try (Connection db = Servers.connect(servers.engines, contender.database())) {
            int orders = cold.finalCount() + warmed.finalCount() + (closed == null ? 0 : closed.finalCount())
                    + probe.values().stream().mapToInt(Integer::intValue).sum();
            rowsByTable = TableWrites.perOrder(tablesBefore, TableWrites.read(db), orders);
        }
        out.println("  rows written per order, by table (both phases): " + rowsByTable);
        out.println("  checking the sandbox ledger...");
        problems.addAll(ledger.check(allStates, skuPrefix, SKUS, STOCK_PER_SKU));
        out.println("  " + (problems.isEmpty() ? "valid: every order final, no double charge, stock adds up"
                : "INVALID: " + String.join("; ", problems)));
        return new Result(contender, round, cold, warmed, closed, probe, startSeconds, rowsByTable, problems);
    }

    /**
     * The engine's JVM, started once more if it exited while starting (on a machine shared with
     * other work a dependency can answer too late for its start-up checks); said so on the output.
     */
    private ChildJvm startEngine() throws Exception {
        try {
            return ChildJvm.start(contender.name(), contender.classPath(), contender.mainAndArgs(),
                    contender.properties(), contender.env(), setting.logs().resolve(contender.name() + ".log"),
                    contender.ready(), Duration.ofSeconds(180));
        } catch (IllegalStateException e) {
            out.println("  the engine did not start (" + e.getMessage() + "); starting it once more");
            return ChildJvm.start(contender.name(), contender.classPath(), contender.mainAndArgs(),
                    contender.properties(), contender.env(), setting.logs().resolve(contender.name() + "-2.log"),
                    contender.ready(), Duration.ofSeconds(180));
        }
    }

    /** Orders whose payment answer the peer's worker drops: each must end TIMED_OUT, released and refunded. */
    private Map<String, Integer> probe(URI api, FinalStates states, String skuPrefix, List<String> problems)
            throws Exception {
        out.printf("  timeout probe: %d orders whose payment answer is lost, payment timeout %d ms...%n",
                PROBE_ORDERS, PROBE_TIMEOUT_MS);
        List<Submission> sent = client.run(new OpenLoopClient.Load(api, OrderRequest.LOST_REPLY_CUSTOMER, 10,
                Duration.ofMillis(PROBE_ORDERS * 100L), skuPrefix, SKUS,
                Map.of("X-Payment-Timeout-Ms", Long.toString(PROBE_TIMEOUT_MS))), new PrintStream(
                        OutputStream.nullOutputStream()));
        Set<String> ids = sent.stream().filter(s -> s.orderId() != null).map(Submission::orderId)
                .collect(Collectors.toSet());
        Map<String, FinalStates.Final> finals = awaitFinal(states, ids, PROBE_WAIT);
        Map<String, Integer> byState = new TreeMap<>();
        finals.values().forEach(f -> byState.merge(f.state() == null ? "NOT_FINAL" : f.state(), 1, Integer::sum));
        ids.forEach(id -> allStates.put(id, finals.containsKey(id) ? finals.get(id).state() : null));
        if (ids.size() != PROBE_ORDERS || byState.getOrDefault("TIMED_OUT", 0) != PROBE_ORDERS) {
            problems.add("timeout probe: " + ids.size() + " accepted, ended " + byState);
        }
        out.println("  timeout probe ended: " + byState);
        return byState;
    }

    private Map<String, FinalStates.Final> awaitFinal(FinalStates states, Set<String> ids, Duration cap)
            throws Exception {
        long until = System.nanoTime() + cap.toNanos();
        long nextReport = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (true) {
            Map<String, FinalStates.Final> finals = states.read(ids);
            long open = ids.stream().filter(id -> !finals.containsKey(id) || finals.get(id).state() == null).count();
            if (open == 0 || System.nanoTime() > until) {
                return finals;
            }
            if (System.nanoTime() > nextReport) {
                out.printf("    waiting: %d of %d not final yet%n", open, ids.size());
                nextReport += Duration.ofSeconds(5).toNanos();
            }
            Thread.sleep(250);
        }
    }

    private static long postmaster(Connection c) throws Exception {
        try (var s = c.createStatement(); var rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            long backend = rs.getLong(1);
            return ProcessHandle.of(backend).flatMap(ProcessHandle::parent).map(ProcessHandle::pid)
                    .orElseThrow(() -> new IllegalStateException("PostgreSQL is not a local process here"));
        }
    }

    /** One measured phase: load, wait for every saga to end, then the figures. */
    private final class Phase {
        private final Snapshot.Pids pids;
        private final BackendSampler sampler;
        private final Connection monitor;
        private final FinalStates states;
        private final List<String> problems;

        Phase(Snapshot.Pids pids, BackendSampler sampler, Connection monitor, FinalStates states,
                List<String> problems) {
            this.pids = pids;
            this.sampler = sampler;
            this.monitor = monitor;
            this.states = states;
            this.problems = problems;
        }

        /** {@code closedClients} 0: open loop at the load's rate; otherwise that many closed-loop clients. */
        PhaseFigures run(String name, OpenLoopClient.Load load, int closedClients) throws Exception {
            if (closedClients == 0) {
                out.printf("  %s: %.0f orders/s for %d s...%n", name, load.rate(), load.duration().toSeconds());
            } else {
                out.printf("  %s: %d closed-loop clients for %d s...%n", name, closedClients,
                        load.duration().toSeconds());
            }
            int queriesBefore = states.queries();
            Snapshot before = Snapshot.take(pids, sampler, monitor, contender.database());
            List<Submission> sent = closedClients == 0 ? client.run(load, out)
                    : client.runClosed(load, closedClients, out);
            Set<String> ids = sent.stream().filter(s -> s.orderId() != null).map(Submission::orderId)
                    .collect(Collectors.toSet());
            Map<String, FinalStates.Final> finals = awaitFinal(states, ids, FINAL_WAIT);
            Snapshot cpuEnd = Snapshot.take(pids, sampler, monitor, contender.database());
            Thread.sleep(1500);
            Snapshot countersEnd = Snapshot.take(pids, sampler, monitor, contender.database());
            ids.forEach(id -> allStates.put(id, finals.containsKey(id) ? finals.get(id).state() : null));
            PhaseFigures figures = figures(name, load, sent, ids, finals, before, cpuEnd, countersEnd,
                    states.queries() - queriesBefore);
            if (figures.notFinal() > 0) {
                problems.add(name + ": " + figures.notFinal() + " accepted order(s) not final after "
                        + FINAL_WAIT.toSeconds() + " s");
            }
            if (figures.finals().containsKey("ERROR")) {
                problems.add(name + ": " + figures.finals().get("ERROR") + " saga(s) failed in the engine");
            }
            out.printf("  %s: %d sent, %d accepted, final %s; %.1f orders/s; CPU %.2f ms/order%n", name,
                    figures.sent(), figures.accepted(), figures.finals(), figures.ordersPerSecond(),
                    figures.cpu().engine());
            return figures;
        }

        private PhaseFigures figures(String name, OpenLoopClient.Load load, List<Submission> sent, Set<String> ids,
                Map<String, FinalStates.Final> finals, Snapshot before, Snapshot cpuEnd, Snapshot countersEnd,
                int harnessQueries) {
            List<Double> submit = new ArrayList<>();
            int accepted = 0;
            Map<String, Integer> refused = new TreeMap<>();
            int notSent = 0;
            long firstDue = Long.MAX_VALUE;
            Map<String, Long> dueById = new HashMap<>();
            for (Submission s : sent) {
                firstDue = Math.min(firstDue, s.dueEpochMillis());
                if (s.status() == -2) {
                    notSent++;
                    continue;
                }
                submit.add(s.latencyMicros() / 1000.0);
                if (s.accepted()) {
                    accepted++;
                } else {
                    refused.merge(s.status() < 0 ? "none" : Integer.toString(s.status()), 1, Integer::sum);
                }
                if (s.orderId() != null) {
                    dueById.put(s.orderId(), s.dueEpochMillis());
                }
            }
            Map<String, Integer> byState = new LinkedHashMap<>();
            List<Double> toFinal = new ArrayList<>();
            long lastFinal = firstDue;
            int notFinal = 0;
            for (String id : ids) {
                FinalStates.Final f = finals.get(id);
                if (f == null || f.state() == null) {
                    notFinal++;
                    continue;
                }
                byState.merge(f.state(), 1, Integer::sum);
                toFinal.add((double) (f.epochMillis() - dueById.get(id)));
                lastFinal = Math.max(lastFinal, f.epochMillis());
            }
            int done = toFinal.size();
            double span = (lastFinal - firstDue) / 1000.0;
            double per = Math.max(1, done);
            PhaseFigures.Cpu cpu = new PhaseFigures.Cpu(
                    ms(cpuEnd.engineJvm() - before.engineJvm()) / per,
                    ms(BackendSampler.engineNanos(before.backends(), cpuEnd.backends(), contender.database())) / per,
                    ms(cpuEnd.broker() - before.broker()) / per,
                    ms(cpuEnd.enginesServer() - before.enginesServer()
                            - BackendSampler.allNanos(before.backends(), cpuEnd.backends())) / per,
                    ms(cpuEnd.sandboxJvm() - before.sandboxJvm() + cpuEnd.sandboxServer() - before.sandboxServer()) / per,
                    ms(cpuEnd.client() - before.client()) / per);
            Map<String, Double> threadGroups = new LinkedHashMap<>();
            ThreadCpu.between(before.engineThreads(), cpuEnd.engineThreads())
                    .forEach((group, used) -> threadGroups.put(group, ms(used.toNanos()) / per));
            PhaseFigures.Db db = new PhaseFigures.Db(
                    (countersEnd.transactions() - before.transactions() - harnessQueries) / per,
                    (countersEnd.rowsWritten() - before.rowsWritten()) / per,
                    (countersEnd.walBytes() - before.walBytes()) / 1024.0 / per);
            return new PhaseFigures(name, load.rate(), sent.size(), accepted, refused, notSent, byState, notFinal,
                    span > 0 ? done / span : 0, PhaseFigures.percentile(submit, 50), PhaseFigures.percentile(submit, 99),
                    PhaseFigures.percentile(toFinal, 50), PhaseFigures.percentile(toFinal, 99), cpu, db,
                    (cpuEnd.nanoTime() - before.nanoTime()) / 1e9, loadAverage(), threadGroups);
        }
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
}
