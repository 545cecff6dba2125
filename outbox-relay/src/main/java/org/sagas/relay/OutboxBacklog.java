package org.sagas.relay;

import java.util.Objects;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;

/**
 * The outbox's backlog as an operator reads it (the console's overview): how many rows wait for
 * Kafka, how old the oldest is, how many were dead-lettered. The same figures as the relay's
 * gauges, read on demand. Thread-safe and stateless; throws {@link OutboxRelayException} when the
 * database fails.
 */
public final class OutboxBacklog {
    /** Through the outbox's primary key: the oldest row is the one with the smallest id. */
    private static final String SELECT = "SELECT (SELECT count(*) FROM outbox) AS pending,"
            + " (SELECT (extract(epoch FROM clock_timestamp() - created_at) * 1000)::bigint"
            + "    FROM outbox ORDER BY id LIMIT 1) AS oldest_ms,"
            + " (SELECT count(*) FROM outbox_dead_letter) AS dead";

    /**
     * @param pendingRows committed rows not yet acknowledged by Kafka
     * @param oldestAgeMillis age of the oldest of them, 0 when there is none
     * @param deadLetters rows the broker refused for good
     */
    public record Snapshot(long pendingRows, long oldestAgeMillis, long deadLetters) {}

    private final Jdbi jdbi;

    public OutboxBacklog(DataSource dataSource) {
        this.jdbi = Jdbi.create(Objects.requireNonNull(dataSource, "dataSource"));
    }

    public Snapshot read() {
        try {
            return jdbi.withHandle(h -> h.createQuery(SELECT).map((rs, ctx) -> new Snapshot(rs.getLong("pending"),
                    Math.max(0, rs.getLong("oldest_ms")), rs.getLong("dead"))).one());
        } catch (JdbiException e) {
            throw new OutboxRelayException("could not read the outbox backlog: " + e.getMessage(), e);
        }
    }
}
