package org.sagas.orchestrator.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.UncheckedIOException;
import java.sql.SQLException;
import java.time.Duration;
import org.jdbi.v3.core.ConnectionException;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.Json;

/**
 * {@code /health/components} answers anonymous callers: a failing job shows its state and a cause
 * code decided on the exception's type, never the exception's text (docs/security.md).
 */
class PeriodicJobHealthTest {
    private static final String SECRET_TEXT = "FATAL: password authentication failed for user sagas at db.internal:5432";

    @Test
    void shouldShowADatabaseFailureAsItsCodeWithoutItsText() {
        // Given a job whose database call fails with a message naming the host and user
        PeriodicJob job = job(() -> {
            throw new ConnectionException(new SQLException(SECRET_TEXT));
        });
        // When it runs
        job.runOnce();
        // Then its health says FAILING, DATABASE, and nothing of the message
        ComponentHealth health = job.health();
        assertThat(health.state()).isEqualTo("FAILING");
        assertThat(health.lastCause()).isEqualTo(FailureCause.DATABASE);
        assertThat(health.failures()).isEqualTo(1);
        assertThat(Json.write(health)).doesNotContain("password", "db.internal", "sagas", "SQLException")
                .contains("\"lastCause\":\"DATABASE\"");
    }

    @Test
    void shouldShowAnUntypedFailureAsUnexpectedAndClearItAfterASuccess() {
        // Given a job that fails once with a bare exception, then succeeds
        boolean[] failed = {false};
        PeriodicJob job = job(() -> {
            if (!failed[0]) {
                failed[0] = true;
                throw new IllegalStateException(SECRET_TEXT);
            }
        });
        // When it runs once
        job.runOnce();
        // Then the code is UNEXPECTED, without the text
        assertThat(job.health().lastCause()).isEqualTo(FailureCause.UNEXPECTED);
        assertThat(Json.write(job.health())).doesNotContain(SECRET_TEXT).doesNotContain("IllegalStateException");
        // And after a run that succeeds, no cause at all, the failure still counted
        job.runOnce();
        assertThat(job.health().state()).isEqualTo("RUNNING");
        assertThat(job.health().lastCause()).isNull();
        assertThat(job.health().failures()).isEqualTo(1);
    }

    @Test
    void shouldTellTheListenerOfEveryRunAndEveryFailureByTheJobsName() {
        // Given a job that fails, then succeeds, reporting to a listener (the metrics' binding)
        java.util.List<String> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        JobListener listener = new JobListener() {
            @Override
            public void onRun(String job, long nanos) {
                told.add("run " + job);
            }

            @Override
            public void onFailure(String job, Throwable failure) {
                told.add("failure " + job + " " + FailureCause.of(failure));
            }
        };
        boolean[] failed = {false};
        PeriodicJob job = new PeriodicJob("listened-job", Duration.ZERO, Duration.ofHours(1), () -> {
            if (!failed[0]) {
                failed[0] = true;
                throw new ConnectionException(new SQLException(SECRET_TEXT));
            }
        }, listener);
        // When it runs twice
        job.runOnce();
        job.runOnce();
        // Then the listener heard the failure (with its cause) and the run, each under the job's name
        assertThat(told).containsExactly("failure listened-job DATABASE", "run listened-job");
    }

    @Test
    void shouldReportALoopOfItsOwnAsAPeriodicJobIsReported() {
        // Given a job with a loop of its own, reporting through JobRuns
        java.util.List<String> failures = new java.util.ArrayList<>();
        JobRuns runs = new JobRuns("own-loop", new JobListener() {
            @Override
            public void onFailure(String job, Throwable failure) {
                failures.add(job);
            }
        });
        // When one run fails and its work throws no further
        runs.run(() -> {
            throw new java.io.UncheckedIOException(new java.io.IOException(SECRET_TEXT));
        }, "on the next tick");
        // Then it shows as a periodic job's failure would
        assertThat(runs.health().state()).isEqualTo("FAILING");
        assertThat(runs.health().lastCause()).isEqualTo(FailureCause.IO);
        assertThat(runs.health().failures()).isEqualTo(1);
        assertThat(runs.health().lastRunAt()).isNotNull();
        assertThat(failures).containsExactly("own-loop");
    }

    @Test
    void shouldDecideTheCodeOnTypesAlongTheCauseChain() {
        assertThat(FailureCause.of(new RuntimeException(new UncheckedIOException(new java.io.IOException("x")))))
                .isEqualTo(FailureCause.IO);
        assertThat(FailureCause.of(new RuntimeException(new java.util.concurrent.TimeoutException())))
                .isEqualTo(FailureCause.TIMEOUT);
        assertThat(FailureCause.of(new IllegalStateException("database is down"))).isEqualTo(FailureCause.UNEXPECTED);
    }

    private static PeriodicJob job(Runnable work) {
        return new PeriodicJob("health-test", Duration.ZERO, Duration.ofHours(1), work, JobListener.NONE);
    }
}
