package org.sagas.relay.internal;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which of the outbox's hash shards this relay publishes. A lease is a session-level advisory lock
 * {@code (SHARD_SPACE, shard)} held by the relay's {@link RelaySession}; membership is a shared
 * lock every live relay holds, so {@code pg_locks} tells how many relays there are without any
 * heartbeat table. Each tick a relay aims at {@code ceil(SHARDS / relays)} leases: it releases the
 * extra ones and takes free ones. A relay that dies loses its session, PostgreSQL frees its locks,
 * and the others take its shards at their next tick.
 *
 * <p>Ticks and releases happen on the relay loop's thread between publishing rounds, never while a
 * shard has rows in flight, so a handed-over shard is never published by two relays at once.
 * {@link #owned()} may be read from any thread.
 */
public final class ShardLeases {
    /** Must match the {@code % 64} of the {@code outbox.shard} column (V1 migration). */
    public static final int SHARDS = 64;

    private static final Logger log = LoggerFactory.getLogger(ShardLeases.class);

    private final String instanceId;
    private final int firstChoice;
    private volatile Set<Integer> owned = Set.of();

    public ShardLeases(String instanceId) {
        this.instanceId = instanceId;
        this.firstChoice = Math.floorMod(instanceId.hashCode(), SHARDS);
    }

    /** The shards this relay holds now (an immutable snapshot). */
    public Set<Integer> owned() {
        return owned;
    }

    /** Rebalances: releases leases above this relay's fair share, takes free ones below it. */
    public void tick(RelaySession session) throws SQLException {
        RelaySession.LockView view = session.lockView();
        int relays = Math.max(1, view.members());
        int target = (SHARDS + relays - 1) / relays;
        TreeSet<Integer> mine = new TreeSet<>(owned);
        int before = mine.size();
        while (mine.size() > target) {
            int shard = mine.pollLast();
            // Publish only what we still hold, from the moment we decide to let a shard go.
            owned = Collections.unmodifiableSet(new TreeSet<>(mine));
            session.release(shard);
        }
        if (mine.size() < target) {
            for (int shard : candidates(view.leasedShards())) {
                if (mine.size() >= target) {
                    break;
                }
                if (session.tryLease(shard)) {
                    mine.add(shard);
                }
            }
        }
        owned = Collections.unmodifiableSet(mine);
        if (mine.size() != before) {
            log.info("outbox relay {} now leases {} of {} shards ({} relays live)", instanceId, mine.size(), SHARDS,
                    relays);
        }
    }

    /** The session is gone, and with it every lease. */
    public void lost() {
        if (!owned.isEmpty()) {
            log.warn("outbox relay {} lost its {} shard leases with its database session", instanceId, owned.size());
        }
        owned = Set.of();
    }

    /** This relay gave its leases back (on stop). */
    public void released() {
        owned = Set.of();
    }

    private List<Integer> candidates(Set<Integer> leased) {
        List<Integer> free = new ArrayList<>();
        for (int i = 0; i < SHARDS; i++) {
            int shard = (firstChoice + i) % SHARDS;
            if (!leased.contains(shard)) {
                free.add(shard);
            }
        }
        return free;
    }
}
