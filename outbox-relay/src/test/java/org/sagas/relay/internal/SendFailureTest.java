package org.sagas.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.junit.jupiter.api.Test;

class SendFailureTest {

    @Test
    void shouldDeadLetterOnlyRecordsTheBrokerWillNeverTake() {
        assertThat(SendFailure.of(new RecordTooLargeException("too big"))).isEqualTo(SendFailure.POISON);
        assertThat(SendFailure.of(new InvalidRecordException("bad"))).isEqualTo(SendFailure.POISON);
    }

    @Test
    void shouldRetryWhenTheBrokerIsAwayOrSlow() {
        assertThat(SendFailure.of(new TimeoutException("expired"))).isEqualTo(SendFailure.RETRY);
        assertThat(SendFailure.of(new NotLeaderOrFollowerException("moving"))).isEqualTo(SendFailure.RETRY);
        assertThat(SendFailure.of(new KafkaException("wrapped", new TimeoutException("expired"))))
                .isEqualTo(SendFailure.RETRY);
    }

    @Test
    void shouldRetryRatherThanDeadLetterWhenPermissionsAreMissing() {
        assertThat(SendFailure.of(new TopicAuthorizationException("no ACL"))).isEqualTo(SendFailure.RETRY);
    }

    @Test
    void shouldRestartTheProducerWhenItIsUnusable() {
        assertThat(SendFailure.of(new IllegalStateException("producer closed"))).isEqualTo(SendFailure.RESTART_PRODUCER);
        assertThat(SendFailure.of(new UnknownServerException("?"))).isEqualTo(SendFailure.RESTART_PRODUCER);
    }

    @Test
    void shouldStopWhenInterrupted() {
        assertThat(SendFailure.of(new InterruptException("stop"))).isEqualTo(SendFailure.STOPPED);
    }
}
