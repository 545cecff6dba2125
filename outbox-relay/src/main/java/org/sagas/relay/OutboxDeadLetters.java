package org.sagas.relay;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;

/**
 * Reads and resolves dead-lettered outbox rows: rows the broker refused for good (too large,
 * invalid), moved to {@code outbox_dead_letter} with the error by a relay.
 *
 * <p>While an aggregate has a dead letter, the relay holds back that aggregate's later outbox
 * rows, so they cannot overtake it. An operator resolves it with {@link #replay(long)} (after fixing
 * the cause, e.g. raising the topic's {@code max.message.bytes}) or {@link #discard(long)}; either
 * lets the later rows flow again.
 *
 * <p>Thread-safe and stateless; each call borrows a connection from the data source. Every method
 * throws {@link OutboxRelayException} when the database fails.
 */
public final class OutboxDeadLetters {
    /** How many characters of the payload {@link DeadLetter#payloadPreview()} carries. */
    public static final int PREVIEW_CHARS = 512;

    private static final String SELECT = "SELECT id, aggregate_id, topic, message_id, message_type, correlation_id,"
            + " octet_length(payload) AS payload_bytes, left(payload, " + PREVIEW_CHARS + ") AS payload_preview,"
            + " created_at, failed_at, error, relay_instance FROM outbox_dead_letter";

    private final Jdbi jdbi;

    public OutboxDeadLetters(DataSource dataSource) {
        this.jdbi = Jdbi.create(Objects.requireNonNull(dataSource, "dataSource"));
    }

    /** The first {@code limit} dead letters in outbox order (oldest first). */
    public List<DeadLetter> list(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must not be negative: " + limit);
        }
        return call("list dead letters", () -> jdbi.withHandle(h -> h.createQuery(SELECT + " ORDER BY id LIMIT :limit")
                .bind("limit", limit)
                .map((rs, ctx) -> new DeadLetter(
                        rs.getLong("id"),
                        rs.getString("aggregate_id"),
                        rs.getString("topic"),
                        rs.getObject("message_id", UUID.class),
                        rs.getString("message_type"),
                        rs.getString("correlation_id"),
                        rs.getInt("payload_bytes"),
                        rs.getString("payload_preview"),
                        rs.getObject("created_at", OffsetDateTime.class).toInstant(),
                        rs.getObject("failed_at", OffsetDateTime.class).toInstant(),
                        rs.getString("error"),
                        rs.getString("relay_instance")))
                .list()));
    }

    /** How many rows are dead-lettered. */
    public long count() {
        return call("count dead letters", () -> jdbi.withHandle(
                h -> h.createQuery("SELECT count(*) FROM outbox_dead_letter").mapTo(Long.class).one()));
    }

    /**
     * Puts dead letter {@code id} back into the outbox under its original id, so it is published
     * again before its aggregate's later rows. Idempotent: returns false when there is no such
     * dead letter (already replayed or discarded).
     */
    public boolean replay(long id) {
        return call("replay dead letter " + id, () -> jdbi.inTransaction(h -> h.createUpdate(
                "WITH moved AS (DELETE FROM outbox_dead_letter WHERE id = :id RETURNING *)"
                        + " INSERT INTO outbox (id, aggregate_id, topic, message_id, message_type, correlation_id,"
                        + " payload, created_at, traceparent, more) OVERRIDING SYSTEM VALUE"
                        + " SELECT id, aggregate_id, topic, message_id, message_type, correlation_id, payload,"
                        + " created_at, traceparent, more"
                        + " FROM moved")
                .bind("id", id)
                .execute() == 1));
    }

    /**
     * Drops dead letter {@code id} for good: it is never published, and its aggregate's later rows
     * flow again. Idempotent: returns false when there is no such dead letter.
     */
    public boolean discard(long id) {
        return call("discard dead letter " + id, () -> jdbi.withHandle(h -> h.createUpdate(
                "DELETE FROM outbox_dead_letter WHERE id = :id").bind("id", id).execute() == 1));
    }

    private static <T> T call(String what, java.util.function.Supplier<T> action) {
        try {
            return action.get();
        } catch (JdbiException e) {
            throw new OutboxRelayException("could not " + what + ": " + e.getMessage(), e);
        }
    }
}
