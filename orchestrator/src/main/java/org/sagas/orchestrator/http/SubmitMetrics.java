package org.sagas.orchestrator.http;

import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.javalin.http.RequestLogger;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Times every {@code POST /orders} from its first byte to its answer, by HTTP status:
 * {@code saga_submit_seconds{status}}, a histogram so a dashboard reads the p99. Shed and invalid
 * submissions are timed too, so the rate by status is the submit rate clients see. Thread-safe.
 */
final class SubmitMetrics implements RequestLogger {
    private final MeterRegistry registry;
    private final Map<Integer, Timer> byStatus = new ConcurrentHashMap<>();

    SubmitMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void handle(Context ctx, Float executionTimeMs) {
        if (ctx.method() != HandlerType.POST || !"/orders".equals(ctx.path())) {
            return;
        }
        timer(ctx.statusCode()).record((long) (executionTimeMs * 1_000_000.0), TimeUnit.NANOSECONDS);
    }

    private Timer timer(int status) {
        // The statuses of POST /orders are a dozen at most, so one series each stays cheap.
        return byStatus.computeIfAbsent(status, s -> Timer.builder("saga.submit")
                .description("POST /orders from its first byte to its answer, by HTTP status")
                .tag("status", Integer.toString(s))
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(30))
                .register(registry));
    }
}
