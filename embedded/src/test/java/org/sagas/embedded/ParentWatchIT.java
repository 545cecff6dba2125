package org.sagas.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A child JVM under {@link ParentWatch} ends, in order, once the pipe from its parent ends. */
class ParentWatchIT {
    private final ScratchDirectory scratch = ScratchDirectory.create("sagas-watch-test-");
    private ChildJvm child;

    @AfterEach
    void cleanUp() {
        if (child != null) {
            child.process.destroyForcibly();
        }
        scratch.close();
    }

    @Test
    void shouldStopTheChildThroughItsShutdownHooksWhenItsParentsPipeEnds() throws Exception {
        // Given a child JVM running under the watch
        Path marker = scratch.path().resolve("stopped");
        child = ChildJvm.start(ParentWatch.class, SleepUntilStopped.class.getName(), marker.toString());
        await().atMost(Duration.ofSeconds(60)).until(() -> child.output.contains("running"));

        // When its stdin ends, as the kernel ends it when the parent dies
        child.process.getOutputStream().close();

        // Then it exits on its own, running its shutdown hooks
        assertThat(child.process.waitFor(ParentWatch.SHUTDOWN_BOUND.toSeconds() + 10, TimeUnit.SECONDS)).isTrue();
        assertThat(marker).hasContent("stopped in order");
        assertThat(child.output).anyMatch(line -> line.startsWith("parent process gone"));
    }
}
