package org.sagas.app;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.sagas.app.check.CheckOptions;
import org.sagas.app.check.Checker;
import org.sagas.app.check.Invariant;
import org.sagas.app.check.Report;
import org.sagas.app.check.ReportOutput;
import org.sagas.app.check.Target;
import org.sagas.app.cluster.RoleProcess;
import org.sagas.orchestrator.Json;

/**
 * {@code ./sagas chaos}: orders against a {@link Cluster} while faults drawn from a seed kill,
 * pause and restart its parts, then the invariant checker on what is left
 * (docs/operations.md, "Breaking it on purpose"). The same seed gives the same schedule of faults;
 * the orders' mix (declines, out of stock on a hot SKU) is drawn from it too.
 */
final class Chaos {
    enum Kind { KILL_ROLE, PAUSE_ROLE, KILL_BROKER, RESTART_POSTGRES, INVENTORY_OUTAGE, SLOW_PROVIDER }

    /** A fault at {@code atMs} from the start, on {@code target}, undone {@code lastsMs} later. */
    record Fault(long atMs, Kind kind, String target, long lastsMs) {}

    private static final int SKUS = 20;
    private static final String HOT_SKU = "CHAOS-HOT";
    /** Longer than a consumer's session timeout (10 s), as long as a step's lease. */
    private static final long PAUSE_MS = 15_000;

    private Chaos() {}

    /**
     * The faults of a run, one after another with a gap between them: which kind, on what, for
     * how long, all from {@code seed}. The first comes after 5 s of orders; each is undone by
     * {@code duration}'s end.
     */
    static List<Fault> schedule(long seed, Duration duration, List<String> processes, int brokers) {
        Random random = new Random(seed);
        List<Fault> faults = new ArrayList<>();
        Kind[] kinds = Kind.values();
        long end = duration.toMillis() - 5_000;
        long at = 5_000;
        while (true) {
            Kind kind = kinds[random.nextInt(kinds.length)];
            if (kind == Kind.KILL_BROKER && brokers < 3) {
                kind = Kind.KILL_ROLE; // one of one or two brokers down takes the cluster down
            }
            long lasts = switch (kind) {
                case PAUSE_ROLE -> PAUSE_MS;
                case RESTART_POSTGRES -> 0;
                default -> 3_000 + random.nextInt(9_000);
            };
            String target = switch (kind) {
                case KILL_ROLE, PAUSE_ROLE -> processes.get(random.nextInt(processes.size()));
                case KILL_BROKER -> "broker-" + (1 + random.nextInt(brokers));
                case RESTART_POSTGRES -> "postgres";
                case INVENTORY_OUTAGE -> "inventory";
                case SLOW_PROVIDER -> "payments";
            };
            if (at + lasts > end) {
                return faults;
            }
            faults.add(new Fault(at, kind, target, lasts));
            at += lasts + 2_000 + random.nextInt(6_000);
        }
    }

    static int run(Map<String, String> flags, Settings settings, PrintStream out) {
        long seed = Long.parseLong(flags.getOrDefault("--seed", Long.toString(System.nanoTime() % 1_000_000)));
        Duration duration = Duration.ofSeconds(Long.parseLong(flags.getOrDefault("--duration", "120")));
        int rate = Integer.parseInt(flags.getOrDefault("--rate", "10"));
        Path results = Path.of(flags.getOrDefault("--results", "target/bench-results")).resolve("chaos.json");
        Cluster.Shape shape = new Cluster.Shape(Integer.parseInt(flags.getOrDefault("--each", "2")),
                Integer.parseInt(flags.getOrDefault("--brokers", "3")), 0);
        out.println("chaos: seed " + seed + " (./sagas chaos --seed " + seed + " repeats this schedule), "
                + duration.toSeconds() + " s at " + rate + " orders/s");
        try (Cluster cluster = Cluster.start(settings, shape, out)) {
            List<String> names = cluster.processes().stream().map(RoleProcess::name)
                    .filter(n -> !n.equals("sandbox")).toList();
            List<Fault> faults = schedule(seed, duration, names, shape.brokers());
            faults.forEach(f -> out.printf("  fault at %5.1f s: %-16s %-18s for %.1f s%n", f.atMs() / 1000.0,
                    f.kind(), f.target(), f.lastsMs() / 1000.0));
            return new Run(cluster, seed, duration, rate, faults, out).go(results);
        } catch (IOException e) {
            throw new ConfigurationError("chaos could not write its results: " + e.getMessage(), e);
        }
    }

    /** One run: the orders, the faults, the check. */
    private static final class Run {
        private final Cluster cluster;
        private final long seed;
        private final Duration duration;
        private final int rate;
        private final List<Fault> faults;
        private final PrintStream out;
        private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        private final Random orders;
        private final Set<UUID> accepted = ConcurrentHashMap.newKeySet();
        private final AtomicInteger sent = new AtomicInteger();
        private final AtomicInteger refused = new AtomicInteger();
        private final AtomicInteger unanswered = new AtomicInteger();
        private final Map<Kind, AtomicInteger> injected = new EnumMap<>(Kind.class);
        private volatile long lastFaultUndoneAt;

        Run(Cluster cluster, long seed, Duration duration, int rate, List<Fault> faults, PrintStream out) {
            this.cluster = cluster;
            this.seed = seed;
            this.duration = duration;
            this.rate = rate;
            this.faults = faults;
            this.out = out;
            this.orders = new Random(seed ^ 0x5DEECE66DL);
            for (Kind k : Kind.values()) {
                injected.put(k, new AtomicInteger());
            }
        }

        int go(Path results) throws IOException {
            for (int i = 0; i < SKUS; i++) {
                put(cluster.inventoryUrl() + "/stock/CHAOS-" + i, "{\"available\":100000}");
            }
            put(cluster.inventoryUrl() + "/stock/" + HOT_SKU, "{\"available\":" + Math.max(10, rate * 3) + "}");
            put(cluster.paymentUrl() + "/_faults", "{\"declineRate\":0.05}");
            long started = System.nanoTime();
            ExecutorService clients = Executors.newFixedThreadPool(32);
            Thread faulting = new Thread(() -> inject(started), "chaos-faults");
            faulting.start();
            long next = started;
            long nextProgress = started + TimeUnit.SECONDS.toNanos(5);
            int n = 0;
            while (System.nanoTime() - started < duration.toNanos()) {
                int index = n++;
                String sku = orders.nextInt(10) == 0 ? HOT_SKU : "CHAOS-" + orders.nextInt(SKUS);
                String customer = "chaos-c-" + orders.nextInt(1000);
                int quantity = 1 + orders.nextInt(3);
                clients.submit(() -> order(index, customer, sku, quantity));
                next += TimeUnit.SECONDS.toNanos(1) / rate;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    sleep(TimeUnit.NANOSECONDS.toMillis(wait));
                }
                if (System.nanoTime() > nextProgress) {
                    nextProgress += TimeUnit.SECONDS.toNanos(5);
                    out.printf("  %3d s: sent %d, accepted %d, refused %d, unanswered %d, faults %d of %d%n",
                            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started), sent.get(), accepted.size(),
                            refused.get(), unanswered.get(), injected.values().stream().mapToInt(AtomicInteger::get)
                                    .sum(), faults.size());
                }
            }
            clients.shutdown();
            awaitQuietly(clients, Duration.ofSeconds(60));
            joinQuietly(faulting);
            restoreAll();
            put(cluster.paymentUrl() + "/_faults", "{\"declineRate\":0}");
            out.println("chaos: orders done, every fault undone; checking (settle up to 180 s)");
            Settings s = cluster.infrastructure();
            // The cluster's brokers take only signed-in clients: the checker reads as the super user.
            Target target = new Target(s.dbUrl(), s.dbUser(), s.dbPassword(), s.kafka(), URI.create(cluster.inventoryUrl()),
                    URI.create(cluster.paymentUrl()), cluster.ledgerToken());
            Report report = Checker.run(target, new CheckOptions(Duration.ofSeconds(180),
                    CheckOptions.DEFAULT_OUTBOX_AGE, CheckOptions.DEFAULT_MAX_IDS, Set.of(),
                    EnumSet.allOf(Invariant.class)));
            long settledAfterMs = report.verdict(Invariant.NOT_TERMINAL).passed()
                    ? Math.max(0, (System.nanoTime() - lastFaultUndoneAt) / 1_000_000) : -1;
            ReportOutput.table(report, out);
            write(results, report, settledAfterMs);
            out.println("chaos: results in " + results + (report.passed() ? "; every invariant holds"
                    : "; invariants failed: " + report.failed()));
            return report.passed() ? 0 : 1;
        }

        /** Each fault at its time, undone after its time; all on this thread, one after another. */
        private void inject(long started) {
            for (Fault f : faults) {
                long wait = f.atMs() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                if (wait > 0) {
                    sleep(wait);
                }
                try {
                    apply(f);
                    injected.get(f.kind()).incrementAndGet();
                    sleep(f.lastsMs());
                    undo(f);
                } catch (RuntimeException e) {
                    out.println("  fault " + f + " could not be applied or undone: " + e);
                }
                lastFaultUndoneAt = System.nanoTime();
            }
        }

        private void apply(Fault f) {
            out.printf("  fault: %s %s%n", f.kind(), f.target());
            switch (f.kind()) {
                case KILL_ROLE -> process(f.target()).kill();
                case PAUSE_ROLE -> process(f.target()).pause();
                case KILL_BROKER -> cluster.brokers().member(Integer.parseInt(f.target().substring(7))).kill();
                case RESTART_POSTGRES -> cluster.restartPostgres(true);
                case INVENTORY_OUTAGE -> put(cluster.inventoryUrl() + "/_faults", "{\"down\":true}");
                case SLOW_PROVIDER -> put(cluster.paymentUrl() + "/_faults",
                        "{\"latencyMs\":2500,\"declineRate\":0.05}");
            }
        }

        private void undo(Fault f) {
            switch (f.kind()) {
                case KILL_ROLE -> process(f.target()).start();
                case PAUSE_ROLE -> process(f.target()).resume();
                case KILL_BROKER -> cluster.brokers().member(Integer.parseInt(f.target().substring(7))).start();
                case RESTART_POSTGRES -> { }
                case INVENTORY_OUTAGE -> put(cluster.inventoryUrl() + "/_faults", "{\"down\":false}");
                case SLOW_PROVIDER -> put(cluster.paymentUrl() + "/_faults", "{\"latencyMs\":0,\"declineRate\":0.05}");
            }
        }

        /** Whatever is still down or paused is brought back, and waited for. */
        private void restoreAll() {
            List<RoleProcess> back = new ArrayList<>();
            for (RoleProcess p : cluster.processes()) {
                p.resume();
                if (!p.isAlive()) {
                    back.add(p.start());
                }
            }
            cluster.awaitReady(cluster.processes());
            put(cluster.inventoryUrl() + "/_faults", "{\"down\":false}");
            lastFaultUndoneAt = System.nanoTime();
        }

        private RoleProcess process(String name) {
            return cluster.processes().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
        }

        /** One order, retried with its key on no answer or a 5xx, as a client would. */
        private void order(int index, String customer, String sku, int quantity) {
            sent.incrementAndGet();
            String key = "chaos-" + seed + "-" + index;
            String body = "{\"customerId\":\"" + customer + "\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"" + sku
                    + "\",\"quantity\":" + quantity + ",\"unitPriceCents\":" + (500 + index % 5000) + "}]}";
            for (int attempt = 0; attempt < 6; attempt++) {
                try {
                    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(cluster.apiUrl() + "/orders"))
                            .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                            .header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                            HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() < 500) {
                        var answer = Json.mapper().readTree(r.body());
                        if (answer.hasNonNull("orderId")) {
                            accepted.add(UUID.fromString(answer.get("orderId").asText()));
                        } else {
                            refused.incrementAndGet();
                        }
                        return;
                    }
                } catch (IOException e) {
                    // no answer: the same key again
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                sleep(1_000L << Math.min(attempt, 3));
            }
            unanswered.incrementAndGet();
        }

        private void write(Path file, Report report, long settledAfterMs) throws IOException {
            ObjectNode json = Json.mapper().createObjectNode();
            json.put("seed", seed);
            json.put("duration_s", duration.toSeconds());
            json.put("rate_per_s", rate);
            json.put("cores", Runtime.getRuntime().availableProcessors());
            ObjectNode kinds = json.putObject("faults_by_kind");
            injected.forEach((k, v) -> kinds.put(k.name(), v.get()));
            ArrayNode schedule = json.putArray("faults");
            faults.forEach(f -> schedule.addObject().put("at_ms", f.atMs()).put("kind", f.kind().name())
                    .put("target", f.target()).put("lasts_ms", f.lastsMs()));
            json.put("orders_sent", sent.get());
            json.put("orders_accepted", accepted.size());
            json.put("orders_refused", refused.get());
            json.put("orders_unanswered", unanswered.get());
            json.put("orders_terminal", report.verdict(Invariant.NOT_TERMINAL).passed() ? accepted.size()
                    : accepted.size() - report.verdict(Invariant.NOT_TERMINAL).count());
            json.put("last_fault_to_all_terminal_ms", settledAfterMs);
            json.set("check", ReportOutput.json(report));
            Files.createDirectories(file.getParent());
            Files.writeString(file, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(json));
        }

        private void put(String url, String body) {
            try {
                http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                        .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(body))
                        .build(), HttpResponse.BodyHandlers.discarding());
            } catch (IOException e) {
                out.println("  could not PUT " + url + ": " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void awaitQuietly(ExecutorService pool, Duration within) {
        try {
            pool.awaitTermination(within.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void joinQuietly(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(Math.max(0, millis));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
