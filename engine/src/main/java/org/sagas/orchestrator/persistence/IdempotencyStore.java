package org.sagas.orchestrator.persistence;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.SqlStatement;

/**
 * HTTP {@code Idempotency-Key} records, each in the scope of the client that sent it ({@link KeyScope},
 * docs/security.md): the same key from two clients is two records. A key is claimed in the transaction
 * that creates the order and deleted after its retention; it is written once. The answer a repeated
 * key gets is not stored with it: it is derived from what the order's saga stored when the
 * submission resolved (docs/decisions/0019). Keys completed before that change keep their stored
 * answer ({@link Entry#completed}). Thread-safe.
 */
public final class IdempotencyStore {
    /**
     * A stored key. {@code completed} with {@code responseStatus} and {@code responseBody}: an
     * answer stored with the key (only keys written before ADR 0019); otherwise the order answers.
     */
    public record Entry(String key, String requestHash, boolean completed, Integer responseStatus,
            String responseBody, UUID orderId, Instant createdAt) {}

    /**
     * Whose keys a submission claims and finds. {@code client} names the client (as quotas and logs
     * do); a key is claimed in its scope. {@code inherited} is a scope whose keys the client honours
     * too: its customer's, where the keys written before keys were scoped live (migration V12), so a
     * retry across the upgrade replays rather than placing a second order. Nothing but that migration
     * writes a customer's scope on an API with keys; on an open API the two are the same.
     */
    public record KeyScope(String client, String inherited) {
        public KeyScope {
            if (client == null || client.isEmpty() || inherited == null || inherited.isEmpty()) {
                throw new IllegalArgumentException("a key scope names a client and the scope it inherits");
            }
        }
    }

    private final Jdbi jdbi;
    private final Duration retention;

    public IdempotencyStore(Jdbi jdbi, Duration retention) {
        this.jdbi = jdbi;
        this.retention = retention;
    }

    /**
     * The claim as a common table expression named {@code claimed}, returning {@code order_id} when
     * this statement took the key and nothing when it was already taken, in the client's scope or the
     * one it inherits: a statement that builds on it (the order's insert) claims the key in the same
     * round trip. Bind it with {@link #bindClaim}.
     */
    public static final String CLAIMED_CTE = "claimed AS (INSERT INTO idempotency_keys (client_scope, idem_key,"
            + " request_hash, state, order_id, created_at, expires_at)"
            + " SELECT :scope, :key, :hash, 'IN_FLIGHT', :order, :now, :expires WHERE NOT EXISTS (SELECT 1"
            + " FROM idempotency_keys WHERE idem_key = :key AND client_scope = :inherited)"
            + " ON CONFLICT DO NOTHING RETURNING order_id)";

    /**
     * Claims {@code key} in {@code scope} inside the caller's transaction. A concurrent claim of the
     * same key in the same scope waits for this transaction and then finds the key taken; a claim in
     * another client's scope is independent of this one.
     *
     * @return false when the key was already taken in this scope or the one it inherits
     */
    public boolean claim(Handle h, KeyScope scope, String key, String requestHash, UUID orderId, Instant now) {
        return bindClaim(h.createQuery("WITH " + CLAIMED_CTE + " SELECT count(*) FROM claimed"), scope, key,
                requestHash, orderId, now).mapTo(Long.class).one() == 1;
    }

    /** Binds the parameters of {@link #CLAIMED_CTE}. */
    public <S extends SqlStatement<S>> S bindClaim(S statement, KeyScope scope, String key, String requestHash,
            UUID orderId, Instant now) {
        return statement.bind("scope", scope.client()).bind("inherited", scope.inherited()).bind("key", key)
                .bind("hash", requestHash).bind("order", orderId).bind("now", Timestamp.from(now))
                .bind("expires", Timestamp.from(now.plus(retention)));
    }

    /**
     * Gives back {@code key}, claimed in {@code scope} for {@code orderId}, inside the caller's
     * transaction: the submission was withdrawn, and a retry with the same key is a new request.
     */
    public void release(Handle h, KeyScope scope, String key, UUID orderId) {
        h.createUpdate("DELETE FROM idempotency_keys WHERE client_scope = :scope AND idem_key = :key"
                        + " AND order_id = :order")
                .bind("scope", scope.client()).bind("key", key).bind("order", orderId).execute();
    }

    /**
     * Stores {@code body} as the answer of the request that claimed {@code key} in {@code scope}
     * (only the client's own key: an inherited one is never completed), or claims the key with it at
     * once when nobody has: for a request whose answer is known when it claims (a cancel that wrote
     * nothing). {@code status} may be null when the answer is decided from {@code body} alone.
     *
     * @return false when the key is taken by another request (its hash differs) or inherited
     */
    public boolean complete(KeyScope scope, String key, String requestHash, UUID orderId, Instant now,
            Integer status, String body) {
        return jdbi.withHandle(h -> h.createUpdate("INSERT INTO idempotency_keys (client_scope, idem_key,"
                        + " request_hash, state, order_id, response_status, response_body, created_at, expires_at)"
                        + " SELECT :scope, :key, :hash, 'COMPLETED', :order, :status, :body, :now, :expires"
                        + " WHERE NOT EXISTS (SELECT 1 FROM idempotency_keys WHERE idem_key = :key"
                        + " AND client_scope = :inherited AND client_scope <> :scope)"
                        + " ON CONFLICT (idem_key, client_scope) DO UPDATE SET state = 'COMPLETED',"
                        + " response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body"
                        + " WHERE idempotency_keys.request_hash = EXCLUDED.request_hash"
                        + " AND idempotency_keys.state = 'IN_FLIGHT'")
                .bind("scope", scope.client()).bind("inherited", scope.inherited()).bind("key", key)
                .bind("hash", requestHash).bind("order", orderId).bind("status", status).bind("body", body)
                .bind("now", Timestamp.from(now)).bind("expires", Timestamp.from(now.plus(retention))).execute() == 1);
    }

    /** The key as {@code scope} sees it: its client's own, else the one it inherits; never another client's. */
    public Optional<Entry> find(KeyScope scope, String key) {
        return jdbi.withHandle(h -> h.createQuery("SELECT idem_key, request_hash, state, response_status,"
                        + " response_body, order_id, created_at FROM idempotency_keys WHERE idem_key = :key"
                        + " AND client_scope IN (:scope, :inherited) ORDER BY client_scope = :scope DESC LIMIT 1")
                .bind("key", key).bind("scope", scope.client()).bind("inherited", scope.inherited())
                .map((rs, ctx) -> new Entry(rs.getString(1), rs.getString(2), "COMPLETED".equals(rs.getString(3)),
                        (Integer) rs.getObject(4), rs.getString(5), rs.getObject(6, UUID.class),
                        rs.getTimestamp(7).toInstant()))
                .findOne());
    }
}
