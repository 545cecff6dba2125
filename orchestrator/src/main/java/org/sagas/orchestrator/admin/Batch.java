package org.sagas.orchestrator.admin;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.sagas.orchestrator.ordering.OrderCursor;

/**
 * A batch as stored: one action over the sagas a filter matched when it was created, walked oldest
 * first from {@code cursor}, at most {@code maxRate} per second.
 *
 * @param filter the filter as given (JSON form)
 * @param snapshotAt sagas created after this are not part of the batch
 * @param cursor where the walk stands: every saga up to it was acted on (null: none yet)
 * @param runner the process running it now, while its lease lasts
 * @param toVersion for {@link #MIGRATE}: the saga definition version the orders move to; else null
 */
record Batch(UUID batchId, String action, Map<String, Object> filter, String reason, String actor, double maxRate,
        String state, int matched, Instant snapshotAt, OrderCursor cursor, String runner, Instant leaseUntil,
        String error, Instant createdAt, Instant updatedAt, Instant finishedAt, Integer toVersion) {
    /** The action that moves orders to another saga definition version. */
    static final String MIGRATE = "migrate";
    static final String RUNNING = "RUNNING";
    static final String STOPPED = "STOPPED";
    static final String COMPLETED = "COMPLETED";
    static final String FAILED = "FAILED";
}
