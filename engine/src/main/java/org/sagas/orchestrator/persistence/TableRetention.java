package org.sagas.orchestrator.persistence;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the tables that grow bounded: deletes, by age, what each {@link Rule} says is past its
 * retention, in small batches (each its own short transaction), so it never holds locks or a long
 * transaction against the consumers and the API. Rules run in order (a child table before its
 * parent); a backlog is worked off over several runs. Run it from a periodic job; thread-safe.
 */
public final class TableRetention {
    private static final Logger log = LoggerFactory.getLogger(TableRetention.class);
    /** Rows per delete statement. */
    static final int BATCH = 5_000;
    /** Most batches per rule and run. */
    static final int MAX_BATCHES_PER_RUN = 200;

    /**
     * Rows of {@code table} matching {@code where} (which compares against {@code :cutoff}, now
     * minus {@code keep}) are deleted.
     */
    public record Rule(String name, String table, String where, Duration keep) {}

    private final Jdbi jdbi;
    private final Clock clock;
    private final List<Rule> rules;

    public TableRetention(Jdbi jdbi, Clock clock, List<Rule> rules) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.rules = List.copyOf(rules);
    }

    /**
     * Consumed message ids: kept longer than the topics keep their records, so a message can never
     * be delivered again after its id was deleted (checked at start).
     */
    public static Rule inbox(Duration keep) {
        return new Rule("inbox", "inbox", "received_at < :cutoff", keep);
    }

    /** Idempotency keys past their own expiry. */
    public static Rule idempotencyKeys() {
        return new Rule("idempotency keys", "idempotency_keys", "expires_at < :cutoff", Duration.ZERO);
    }

    /** Ended sagas (their orders with them) and their history, {@code keep} after they ended. */
    public static List<Rule> endedSagas(Duration keep) {
        String ended = "SELECT saga_id FROM saga_instance WHERE status IN ('COMPLETED', 'COMPENSATED', 'FAILED')"
                + " AND updated_at < :cutoff";
        return List.of(new Rule("ended sagas' history", "saga_history", "saga_id IN (" + ended + ")", keep),
                new Rule("ended sagas", "saga_instance", "saga_id IN (" + ended + ")"
                        + " AND NOT EXISTS (SELECT 1 FROM saga_history h WHERE h.saga_id = saga_instance.saga_id)", keep));
    }

    /** The operator API's audit, by age. */
    public static Rule audit(Duration keep) {
        return new Rule("operator audit", "admin_audit", "at < :cutoff", keep);
    }

    /** Operator batches that finished. */
    public static Rule batches(Duration keep) {
        return new Rule("operator batches", "admin_batch", "state IN ('STOPPED', 'COMPLETED', 'FAILED')"
                + " AND created_at < :cutoff", keep);
    }

    /** Reconciliation findings resolved. */
    public static Rule resolvedFindings(Duration keep) {
        return new Rule("resolved findings", "reconciliation_finding", "state = 'RESOLVED' AND resolved_at < :cutoff",
                keep);
    }

    /** Applies every rule once; returns how many rows it deleted in all. */
    public int run() {
        int total = 0;
        for (Rule rule : rules) {
            int deleted = run(rule);
            if (deleted > 0) {
                log.info("retention: deleted {} rows of {} ({} older than {})", deleted, rule.table(), rule.name(),
                        rule.keep());
            }
            total += deleted;
        }
        return total;
    }

    private int run(Rule rule) {
        Timestamp cutoff = Timestamp.from(clock.instant().minus(rule.keep()));
        String sql = "DELETE FROM " + rule.table() + " WHERE ctid = ANY (ARRAY(SELECT ctid FROM " + rule.table()
                + " WHERE " + rule.where() + " LIMIT :batch))";
        int total = 0;
        for (int i = 0; i < MAX_BATCHES_PER_RUN; i++) {
            int deleted = jdbi.withHandle(h -> h.createUpdate(sql).bind("cutoff", cutoff).bind("batch", BATCH)
                    .execute());
            total += deleted;
            if (deleted < BATCH) {
                break;
            }
        }
        return total;
    }
}
