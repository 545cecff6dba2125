package org.sagas.adapters.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.messaging.Topics;

/** The order commands consumer's fair share: a client's backlog in a partition does not go first whole. */
class FairShareTest {
    @Test
    void shouldTakeABackloggedClientsCommandsInTurnsWithTheOthersEachClientInItsOwnOrder() {
        // Given a poll of a partition: client A's 6 commands, then B's 2, then C's 1
        List<ConsumerRecord<String, byte[]>> poll = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            poll.add(command(poll.size(), "a-" + i, "shop-a"));
        }
        poll.add(command(poll.size(), "b-0", "shop-b"));
        poll.add(command(poll.size(), "b-1", "shop-b"));
        poll.add(command(poll.size(), "c-0", "shop-c"));

        // When the loop orders them by client
        List<String> turns = ConsumerLoop.inTurns(poll, OrderCommandConsumer::clientOf).stream()
                .map(ConsumerRecord::key).toList();

        // Then B and C wait for one of A's each, not all six, and each client's own order holds
        assertThat(turns).containsExactly("a-0", "b-0", "c-0", "a-1", "b-1", "a-2", "a-3", "a-4", "a-5");
    }

    @Test
    void shouldKeepOffsetOrderWhenOneClientHasThePollAndGiveAnUnreadableCommandATurnOfItsOwn() {
        List<ConsumerRecord<String, byte[]>> one = List.of(command(0, "a-0", "shop-a"), command(1, "a-1", "shop-a"));
        assertThat(ConsumerLoop.inTurns(one, OrderCommandConsumer::clientOf)).isSameAs(one);

        List<ConsumerRecord<String, byte[]>> mixed = List.of(command(0, "a-0", "shop-a"), command(1, "a-1", "shop-a"),
                new ConsumerRecord<>(Topics.ORDERS_COMMANDS, 0, 2, "junk", "not json".getBytes(StandardCharsets.UTF_8)));
        assertThat(ConsumerLoop.inTurns(mixed, OrderCommandConsumer::clientOf).stream().map(ConsumerRecord::key))
                .containsExactly("a-0", "junk", "a-1");
    }

    private static ConsumerRecord<String, byte[]> command(long offset, String reference, String customer) {
        return new ConsumerRecord<>(Topics.ORDERS_COMMANDS, 0, offset, reference, ("{\"customerId\":\"" + customer
                + "\",\"clientReference\":\"" + reference + "\"}").getBytes(StandardCharsets.UTF_8));
    }
}
