package org.sagas.orchestrator.http;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.http.ApiServer.Admission.Decision;
import org.sagas.orchestrator.http.ApiServer.Admission.Refused;
import org.sagas.orchestrator.http.ApiServer.Admission.Request;
import org.sagas.orchestrator.resilience.Priority;
import org.sagas.orchestrator.resilience.PriorityShedder;
import org.sagas.orchestrator.resilience.ResilienceListener;
import org.slf4j.LoggerFactory;

class AdmissionControlTest {
    private final Logger logger = (Logger) LoggerFactory.getLogger(AdmissionControl.class);
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @AfterEach
    void detach() {
        logger.detachAppender(lines);
    }

    @Test
    void shouldLogTheFirstOfAFloodOfRefusalsAtOnceAndCountTheRestInTheMetric() {
        // Given admission with one in-flight slot, taken, and no time to wait for it
        lines.start();
        logger.addAppender(lines);
        PriorityShedder shedder = new PriorityShedder(1, 1, 1, ResilienceListener.NONE);
        AdmissionControl admission = new AdmissionControl(shedder, () -> 0, 1_000, () -> 0, customers -> 0, 1_000,
                Clock.systemUTC(), Duration.ZERO, registry);
        Decision held = admission.decide(request());
        assertThat(held).isInstanceOf(ApiServer.Admission.Admitted.class);

        // When a hundred more arrive at once, and one with its deadline already passed
        for (int i = 0; i < 100; i++) {
            assertThat(admission.decide(request())).isInstanceOf(Refused.class);
        }
        Request late = new Request("shop", Set.of("c-1"), Priority.NORMAL, System.currentTimeMillis() - 1,
                System.nanoTime(), OptionalInt.empty());
        assertThat(((Refused) admission.decide(late)).type()).isEqualTo("deadline-passed");

        // Then each is counted, and the log says why without a line for each
        assertThat(registry.get("saga.admission.refused").tag("reason", "overloaded").counter().count())
                .isEqualTo(100);
        assertThat(lines.list).hasSize(1);
        assertThat(lines.list.get(0).getFormattedMessage()).contains("refused 503, nothing stored (normal priority)")
                .contains("no in-flight slot").contains("limit 1");
    }

    private static Request request() {
        return new Request("shop", Set.of("c-1"), Priority.NORMAL, System.currentTimeMillis() + 5_000,
                System.nanoTime(), OptionalInt.empty());
    }
}
