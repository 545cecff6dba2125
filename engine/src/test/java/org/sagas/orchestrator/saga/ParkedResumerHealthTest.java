package org.sagas.orchestrator.saga;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.lifecycle.FailureCause;
import org.sagas.orchestrator.lifecycle.JobListener;
import org.sagas.orchestrator.resilience.ResilienceConfig;
import org.sagas.orchestrator.resilience.ResilienceListener;
import org.sagas.orchestrator.resilience.ResilientDependency;

/**
 * The parked resumer keeps its own paced loop, but a pass that fails is reported as a periodic
 * job's is: in its health ({@code /health/components}) and to the job listener
 * ({@code saga_job_failures_total{job="parked-resumer"}}).
 */
class ParkedResumerHealthTest {

    @Test
    void shouldShowAFailingPassInItsHealthAndTellTheListener() {
        // Given a resumer whose database cannot be reached
        Jdbi unreachable = Jdbi.create(() -> {
            throw new SQLException("connection refused: db.internal:5432");
        });
        SagaEngine engine = new SagaEngine(unreachable, Clock.systemUTC(), SagaTimings.defaults(), () -> { });
        List<String> failures = new CopyOnWriteArrayList<>();
        List<String> runs = new CopyOnWriteArrayList<>();
        JobListener listener = new JobListener() {
            @Override
            public void onRun(String job, long nanos) {
                runs.add(job);
            }

            @Override
            public void onFailure(String job, Throwable failure) {
                failures.add(job + " " + FailureCause.of(failure));
            }
        };
        ParkedResumer resumer = new ParkedResumer(engine, "inventory",
                ResilientDependency.create(ResilienceConfig.inventoryDefaults(), ResilienceListener.NONE), 50,
                Duration.ofSeconds(1), Duration.ofHours(1), listener);
        assertThat(resumer.health().state()).isEqualTo("RUNNING");

        // When a resume pass runs
        resumer.tick();

        // Then it shows FAILING with the code of a database failure, and the listener counted it by name
        assertThat(resumer.health().state()).isEqualTo("FAILING");
        assertThat(resumer.health().lastCause()).isEqualTo(FailureCause.DATABASE);
        assertThat(resumer.health().failures()).isEqualTo(1);
        assertThat(failures).containsExactly(ParkedResumer.NAME + " DATABASE");
        assertThat(runs).isEmpty();
    }
}
