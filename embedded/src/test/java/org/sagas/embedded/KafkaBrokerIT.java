package org.sagas.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A broker start ends a broker a dead owner left on its data directory, and refuses one a live owner runs. */
class KafkaBrokerIT {
    private final ScratchDirectory scratch = ScratchDirectory.create("sagas-kafka-test-");
    private final Path directory = scratch.path().resolve("kafka");
    private ChildJvm leftover;

    @AfterEach
    void cleanUp() {
        if (leftover != null) {
            leftover.process.destroyForcibly();
        }
        ChildJvm.processesNaming(scratch.path()).forEach(ProcessHandle::destroyForcibly);
        scratch.close();
    }

    @Test
    void shouldEndTheBrokerADeadOwnerLeftThenStartRefuseASecondOwnerAndRestart() throws Exception {
        // Given a process of a previous run still running as this directory's broker (its command line and pid file)
        Files.createDirectories(directory);
        Path config = Files.writeString(directory.resolve("server.properties"), "# a previous run's\n");
        Path marker = scratch.path().resolve("leftover-stopped");
        leftover = ChildJvm.start(SleepUntilStopped.class, marker.toString(), "kafka.Kafka", config.toString());
        await().atMost(Duration.ofSeconds(60)).until(() -> leftover.output.contains("running"));
        Files.writeString(directory.resolve("broker.pid"), leftover.process.pid() + "\n", StandardCharsets.UTF_8);

        // When a broker starts on the directory
        KafkaBroker broker = new KafkaBroker(directory, 0).start();
        try {
            // Then the leftover was asked to stop (SIGTERM: its shutdown hooks ran) and the new broker runs
            assertThat(leftover.process.isAlive()).isFalse();
            assertThat(marker).hasContent("stopped in order");
            assertThat(broker.isRunning()).isTrue();
            assertThat(Files.readString(directory.resolve("broker.pid")).strip())
                    .isEqualTo(Long.toString(broker.pid()));

            // And a second broker on the same directory is refused while this one runs
            assertThatThrownBy(() -> new KafkaBroker(directory, 0).start())
                    .isInstanceOf(DataDirectoryInUseException.class);
            assertThat(broker.isRunning()).isTrue();

            // And after an outage the tests inject (kill, start again) it is the owner again
            long first = broker.pid();
            broker.kill();
            assertThat(directory.resolve("broker.pid")).doesNotExist();
            broker.start();
            assertThat(broker.isRunning()).isTrue();
            assertThat(Files.readString(directory.resolve("broker.pid")).strip())
                    .isEqualTo(Long.toString(broker.pid())).isNotEqualTo(Long.toString(first));
        } finally {
            broker.stop();
        }
        assertThat(directory.resolve("broker.pid")).doesNotExist();
    }
}
