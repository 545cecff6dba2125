package org.sagas.relay.internal;

import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.SerializationException;

/** What the relay does with a row whose send failed. */
public enum SendFailure {
    /** Transient (broker away, timeout, leader moving): the row stays and is sent again later. */
    RETRY,
    /** The broker will never take this record: move it to the dead letters. */
    POISON,
    /** The producer itself is unusable (closed, fatal state): make a new one, then retry. */
    RESTART_PRODUCER,
    /** The relay is being stopped. */
    STOPPED;

    /**
     * Classifies a producer error. Only errors about the record itself are poison; a broker or
     * permission problem is never the row's fault, so those rows wait instead.
     */
    public static SendFailure of(Throwable error) {
        Throwable e = error;
        if (e instanceof KafkaException && !(e instanceof RetriableException)
                && e.getCause() instanceof RetriableException) {
            e = e.getCause();
        }
        if (e instanceof RecordTooLargeException || e instanceof InvalidRecordException
                || e instanceof InvalidTopicException || e instanceof SerializationException) {
            return POISON;
        }
        if (e instanceof InterruptException || e instanceof InterruptedException) {
            return STOPPED;
        }
        if (e instanceof RetriableException || e instanceof AuthenticationException
                || e instanceof AuthorizationException) {
            return RETRY;
        }
        return RESTART_PRODUCER;
    }
}
