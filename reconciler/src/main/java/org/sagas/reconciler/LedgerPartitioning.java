package org.sagas.reconciler;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;

/**
 * Where a ledger entry goes: its record is keyed by the entry (charge or reservation key) so that
 * compaction keeps the last state of every entry, but it is written to the partition its order id
 * would have under Kafka's default partitioner — the partition of the order's events, commands and
 * replies. The reconciliation topology thus reads all of an order's facts in one task, in
 * timestamp order, with no repartition topic in between. Stateless.
 */
public final class LedgerPartitioning {
    private LedgerPartitioning() {}

    /** The partition of {@code orderId} among {@code partitions}, as the default partitioner picks for that key. */
    public static int partition(String orderId, int partitions) {
        return Utils.toPositive(Utils.murmur2(orderId.getBytes(StandardCharsets.UTF_8))) % partitions;
    }
}
