package org.sagas.app;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;
import org.sagas.orchestrator.lifecycle.JobListener;

/**
 * Background jobs' runs and failures as metrics: {@code saga_job_runs_seconds{job}} and
 * {@code saga_job_failures_total{job}}. Thread-safe.
 */
final class MicrometerJobListener implements JobListener {
    private final MeterRegistry registry;

    MicrometerJobListener(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void onRun(String job, long nanos) {
        Timer.builder("saga.job.runs").tag("job", job).description("Runs of a background job")
                .register(registry).record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void onFailure(String job, Throwable failure) {
        Counter.builder("saga.job.failures").tag("job", job)
                .description("Runs of a background job that failed (logged with the job's name)")
                .register(registry).increment();
    }
}
