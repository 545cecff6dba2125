package org.sagas.orchestrator.persistence;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the {@link Inbox} bounded: deletes consumed message ids older than the retention, in small
 * batches (each its own short transaction, found through the BRIN index on {@code received_at}), so
 * it never holds locks or a long transaction against the consumers. The retention must be longer
 * than the topics keep their records ({@code Topics.RETENTION_MS}): a message can then never be
 * delivered again after its id was deleted. A background job ({@link #start}, {@link #close});
 * thread-safe.
 */
public final class InboxRetention implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(InboxRetention.class);
    /** Rows per delete statement. */
    static final int BATCH = 5_000;
    /** Most batches per run: a backlog is worked off over several runs. */
    static final int MAX_BATCHES_PER_RUN = 200;

    private final Jdbi jdbi;
    private final Duration retention;
    private final Clock clock;
    private final ScheduledExecutorService scheduler = org.sagas.orchestrator.lifecycle.Threads.scheduler("inbox-retention");

    public InboxRetention(Jdbi jdbi, Duration retention, Clock clock) {
        this.jdbi = jdbi;
        this.retention = retention;
        this.clock = clock;
    }

    public InboxRetention start(Duration period) {
        scheduler.scheduleWithFixedDelay(this::runQuietly, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    private void runQuietly() {
        try {
            int deleted = run();
            if (deleted > 0) {
                log.info("inbox retention: deleted {} message ids older than {}", deleted, retention);
            }
        } catch (RuntimeException e) {
            log.warn("inbox retention failed; its next run retries: {}", e.toString());
        }
    }

    /** Deletes what is past the retention now, batch by batch; returns how many rows. */
    public int run() {
        Timestamp cutoff = Timestamp.from(clock.instant().minus(retention));
        int total = 0;
        for (int i = 0; i < MAX_BATCHES_PER_RUN; i++) {
            int deleted = jdbi.withHandle(h -> h.createUpdate("DELETE FROM inbox WHERE ctid = ANY (ARRAY("
                            + "SELECT ctid FROM inbox WHERE received_at < :cutoff LIMIT :batch))")
                    .bind("cutoff", cutoff).bind("batch", BATCH).execute());
            total += deleted;
            if (deleted < BATCH) {
                break;
            }
        }
        return total;
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
