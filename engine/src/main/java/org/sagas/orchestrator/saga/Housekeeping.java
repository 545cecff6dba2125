package org.sagas.orchestrator.saga;

import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the engine does to sagas nobody else moves: steps whose reply is late, parks past their
 * time to live, compensations that stall, incidents, a command sent again. Thread-safe.
 */
final class Housekeeping {
    private static final Logger log = LoggerFactory.getLogger(SagaEngine.class);

    private final EngineCore core;
    private final StepRunner runner;

    Housekeeping(EngineCore core, StepRunner runner) {
        this.core = core;
        this.runner = runner;
    }

    int timeOutSteps(int limit) {
        List<Transition<?>> done = core.jdbi.inTransaction(h -> {
            List<Transition<?>> list = new ArrayList<>();
            for (SagaStore.Row row : SagaStore.lockTimedOut(h, core.clock.instant(), limit, core.registry().known())) {
                list.add(timeOut(h, core.definition(row.definition()), row));
            }
            return list;
        });
        done.forEach(core::committed);
        return done.size();
    }

    private <D> Transition<D> timeOut(Handle h, SagaDefinition<D> def, SagaStore.Row row) {
        Transition<D> t = SagaDecisions.afterStepTimeout(def, row.as(def));
        core.write(h, def, t);
        log.warn("saga {} step {} timed out waiting for its reply; now {}", row.id(), row.step(), t.after().label());
        return t;
    }

    int expireParked(int limit) {
        List<Applied<?>> done = core.jdbi.inTransaction(h -> {
            List<Applied<?>> list = new ArrayList<>();
            for (SagaStore.Row row : SagaStore.lockExpired(h, core.clock.instant(), limit, core.registry().known())) {
                list.add(expire(h, core.definition(row.definition()), row));
            }
            return list;
        });
        for (Applied<?> a : done) {
            core.committed(a.transition());
            runner.resumeInline(a);
        }
        return done.size();
    }

    private <D> Applied<D> expire(Handle h, SagaDefinition<D> def, SagaStore.Row row) {
        Transition<D> t = SagaDecisions.expire(def, row.as(def), core.clock.instant(), core.timings);
        core.write(h, def, t);
        log.warn("saga {} expired after waiting on {} since {}; now {}", row.id(), row.parkedOn(), row.createdAt(),
                t.after().label());
        return Applied.moved(t);
    }

    Optional<SagaInstance<?>> resendCommand(UUID id, String why) {
        Optional<Transition<?>> done = core.jdbi.inTransaction(h -> {
            List<SagaStore.Row> rows = SagaStore.lockAll(h, List.of(id), core.registry().known());
            if (rows.isEmpty() || rows.get(0).status() != SagaStatus.AWAITING_REPLY) {
                return Optional.empty();
            }
            return Optional.of(resend(h, core.definition(rows.get(0).definition()), rows.get(0), why));
        });
        done.ifPresent(core::committed);
        return done.map(Transition::after);
    }

    private <D> Transition<D> resend(Handle h, SagaDefinition<D> def, SagaStore.Row row, String why) {
        Transition<D> t = SagaDecisions.resendCommand(def, row.as(def), why);
        core.write(h, def, t);
        log.warn("saga {} step {}: command sent again ({})", row.id(), row.step(), why);
        return t;
    }

    boolean raiseIncident(UUID id, IncidentCause cause, String detail) {
        boolean raised = core.jdbi.inTransaction(h -> SagaStore.raiseIncident(h, id, cause, detail,
                core.clock.instant()));
        if (raised) {
            log.error("saga {} needs an operator: incident {} ({})", id, cause, detail);
            core.incidentRaised(id, cause);
        }
        return raised;
    }

    int flagStalledCompensations(Duration stalledAfter, int limit) {
        List<Map<String, Object>> stalled = core.jdbi.withHandle(h -> SagaStore.known(h.createQuery("SELECT saga_id,"
                        + " parked_on, park_count FROM saga_instance WHERE status = 'COMPENSATING' AND parked_on IS NOT"
                        + " NULL AND incident_cause IS NULL AND label_at < :before" + SagaStore.KNOWN
                        + " ORDER BY label_at LIMIT :limit"), core.registry().known())
                .bind("before", Timestamp.from(core.clock.instant().minus(stalledAfter)))
                .bind("limit", limit).mapToMap().list());
        int raised = 0;
        for (Map<String, Object> row : stalled) {
            if (raiseIncident((UUID) row.get("saga_id"), IncidentCause.COMPENSATION_STALLED, "compensating, parked on "
                    + row.get("parked_on") + " for more than " + stalledAfter.toMinutes() + " min ("
                    + row.get("park_count") + " parks); still retried")) {
                raised++;
            }
        }
        return raised;
    }

    Map<IncidentCause, Long> incidentCounts() {
        return core.jdbi.withHandle(h -> {
            Map<IncidentCause, Long> counts = new EnumMap<>(IncidentCause.class);
            h.createQuery("SELECT incident_cause, count(*) FROM saga_instance WHERE incident_cause IS NOT NULL"
                            + " GROUP BY incident_cause")
                    .map((rs, ctx) -> Map.entry(IncidentCause.valueOf(rs.getString(1)), rs.getLong(2)))
                    .forEach(e -> counts.put(e.getKey(), e.getValue()));
            return counts;
        });
    }
}
