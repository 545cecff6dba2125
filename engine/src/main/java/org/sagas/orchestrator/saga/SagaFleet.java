package org.sagas.orchestrator.saga;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * What the running processes know (docs/decisions/0025-versioned-saga-definitions.md): each process
 * records the (type, version) pairs its engine has in {@code saga_definition_host}, with a heartbeat
 * ({@link #heartbeat}, run by a periodic job); a row silent for {@value #STALE_AFTER_HEARTBEATS}
 * heartbeats no longer counts and is deleted. At start-up {@link #checkLiveVersions} refuses a process
 * while live instances run a version that neither it nor a live process has: nobody would run them.
 * The times are the database's, so the processes' clocks do not matter. Thread-safe.
 */
public final class SagaFleet {
    /** Heartbeats a process may miss before what it knows no longer counts. */
    public static final int STALE_AFTER_HEARTBEATS = 3;

    private final Jdbi jdbi;
    private final SagaEngine engine;
    private final Duration staleAfter;
    private final UUID processId = UUID.randomUUID();

    /** @param heartbeat how often {@link #heartbeat} runs (in every process alike) */
    public SagaFleet(Jdbi jdbi, SagaEngine engine, Duration heartbeat) {
        this.jdbi = jdbi;
        this.engine = engine;
        this.staleAfter = heartbeat.multipliedBy(STALE_AFTER_HEARTBEATS);
    }

    /** This process's id in {@code saga_definition_host}. */
    public UUID processId() {
        return processId;
    }

    /** Records, with a fresh heartbeat, every version this process's engine has; deletes stale rows. */
    public void heartbeat() {
        Set<SagaVersion> known = engine.registry().known();
        jdbi.useTransaction(h -> {
            SagaStore.known(h.createUpdate("INSERT INTO saga_definition_host (process_id, saga_type,"
                            + " definition_version) SELECT :process, t, v FROM unnest(CAST(:knownTypes AS text[]),"
                            + " CAST(:knownVersions AS int[])) AS k(t, v) ON CONFLICT (process_id, saga_type,"
                            + " definition_version) DO UPDATE SET heartbeat_at = now()"), known)
                    .bind("process", processId).execute();
            h.createUpdate("DELETE FROM saga_definition_host WHERE heartbeat_at < now() - :stale * interval '1 ms'")
                    .bind("stale", staleAfter.toMillis()).execute();
        });
    }

    /**
     * Every definition version this process has, a live process has, or a live instance runs, with
     * its live instances by status, ordered by type and version. Reads only live instances (their
     * predicate is the partial index {@code saga_open_step_idx}'s, V7: ended ones cost nothing) and
     * the heartbeat table.
     */
    public java.util.List<DefinitionCensus> census() {
        SagaRegistry registry = engine.registry();
        Map<SagaVersion, Map<SagaStatus, Long>> live = new java.util.TreeMap<>(BY_TYPE_AND_VERSION);
        Map<SagaVersion, Integer> hosts = new java.util.TreeMap<>(BY_TYPE_AND_VERSION);
        jdbi.useHandle(h -> {
            h.createQuery("SELECT saga_type, definition_version, status, count(*) FROM saga_instance"
                            + " WHERE status IN ('RUNNING', 'AWAITING_REPLY', 'PARKED', 'COMPENSATING')"
                            + " GROUP BY saga_type, definition_version, status")
                    .map((rs, ctx) -> {
                        live.computeIfAbsent(new SagaVersion(rs.getString(1), rs.getInt(2)),
                                v -> new java.util.EnumMap<>(SagaStatus.class))
                                .put(SagaStatus.valueOf(rs.getString(3)), rs.getLong(4));
                        return 0;
                    }).list();
            h.createQuery("SELECT saga_type, definition_version, count(DISTINCT process_id)::int"
                            + " FROM saga_definition_host WHERE heartbeat_at >= now() - :stale * interval '1 ms'"
                            + " GROUP BY saga_type, definition_version")
                    .bind("stale", staleAfter.toMillis())
                    .map((rs, ctx) -> hosts.put(new SagaVersion(rs.getString(1), rs.getInt(2)), rs.getInt(3)))
                    .list();
        });
        java.util.Set<SagaVersion> all = new java.util.TreeSet<>(BY_TYPE_AND_VERSION);
        all.addAll(registry.known());
        all.addAll(live.keySet());
        all.addAll(hosts.keySet());
        java.util.List<DefinitionCensus> result = new java.util.ArrayList<>();
        for (SagaVersion v : all) {
            boolean here = registry.known().contains(v);
            boolean startsNew = here && SagaVersion.of(registry.starting(v.type())).equals(v);
            result.add(new DefinitionCensus(v, here, startsNew, hosts.getOrDefault(v, 0),
                    live.getOrDefault(v, Map.of())));
        }
        return result;
    }

    private static final java.util.Comparator<SagaVersion> BY_TYPE_AND_VERSION = java.util.Comparator
            .comparing(SagaVersion::type).thenComparingInt(SagaVersion::version);

    /**
     * Refuses to start this process while live (not ended) instances run a version that neither its
     * engine nor a process with a heartbeat in the last {@value #STALE_AFTER_HEARTBEATS} periods has.
     * Reads every live instance's version once (no index: it runs at start only).
     *
     * @throws UnknownLiveVersions naming each such type, version and count
     */
    public void checkLiveVersions() {
        Map<SagaVersion, Long> orphans = jdbi.withHandle(h -> {
            Map<SagaVersion, Long> found = new LinkedHashMap<>();
            SagaStore.known(h.createQuery("SELECT saga_type, definition_version, count(*) FROM saga_instance s"
                            + " WHERE status NOT IN ('COMPLETED', 'COMPENSATED', 'FAILED')"
                            + " AND (saga_type, definition_version) NOT IN (SELECT * FROM"
                            + " unnest(CAST(:knownTypes AS text[]), CAST(:knownVersions AS int[])))"
                            + " AND NOT EXISTS (SELECT 1 FROM saga_definition_host p WHERE p.saga_type = s.saga_type"
                            + " AND p.definition_version = s.definition_version"
                            + " AND p.heartbeat_at >= now() - :stale * interval '1 ms')"
                            + " GROUP BY saga_type, definition_version ORDER BY saga_type, definition_version"),
                            engine.registry().known())
                    .bind("stale", staleAfter.toMillis())
                    .map((rs, ctx) -> Map.entry(new SagaVersion(rs.getString(1), rs.getInt(2)), rs.getLong(3)))
                    .forEach(e -> found.put(e.getKey(), e.getValue()));
            return found;
        });
        if (!orphans.isEmpty()) {
            throw new UnknownLiveVersions(orphans, engine.registry().known());
        }
    }
}
