package org.sagas.app.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.messaging.MessageContracts;
import org.sagas.orchestrator.messaging.Topics;

/** The terminal's PlaceOrder keeps its contract, and tail's line says what a person needs. */
class PlaceOrderCommandTest {
    @Test
    void shouldWriteAPlaceOrderItsSchemaAcceptsAndRefuseOneThatBreaksIt() {
        PlaceOrderCommand.PlaceOrder good = new PlaceOrderCommand.PlaceOrder("c-1", "EUR",
                List.of(new PlaceOrderCommand.Line("SKU-1", 2, 1250)), "key-1", "ref-1");
        PlaceOrderCommand.PlaceOrder bad = new PlaceOrderCommand.PlaceOrder("c 1", "euro",
                List.of(new PlaceOrderCommand.Line("SKU-1", 10_001, -1)), "key 1", "ref-1");

        assertThat(PlaceOrderCommand.check(good)).isInstanceOf(MessageContracts.Valid.class);
        MessageContracts.Verdict verdict = PlaceOrderCommand.check(bad);
        assertThat(verdict).isInstanceOf(MessageContracts.Violation.class);
        assertThat(((MessageContracts.Violation) verdict).errors()).hasSize(5);
    }

    @Test
    void shouldPrintAStatusChangeAsOneLineWithStatusVersionReasonAndTotal() {
        ConsumerRecord<String, byte[]> r = new ConsumerRecord<>(Topics.ORDERS_EVENTS, 0, 7, 1_796_000_000_000L,
                org.apache.kafka.common.record.TimestampType.CREATE_TIME, 0, 0, "0b9e4e1a-5d0c-4c1e-9a51-2f6d1c1e7b3a",
                ("{\"orderId\":\"0b9e4e1a-5d0c-4c1e-9a51-2f6d1c1e7b3a\",\"customerId\":\"c-1\",\"status\":\"CONFIRMED\","
                        + "\"reason\":\"completed\",\"totalCents\":2505,\"currency\":\"EUR\",\"sagaVersion\":3,"
                        + "\"at\":\"2026-12-04T02:45:46Z\"}").getBytes(StandardCharsets.UTF_8),
                new org.apache.kafka.common.header.internals.RecordHeaders().add(Topics.MESSAGE_TYPE,
                        "OrderStatusChanged".getBytes(StandardCharsets.UTF_8)), java.util.Optional.empty());

        String line = OrderEventLine.format(r);

        assertThat(line).doesNotContain("\n").contains("OrderStatusChanged", "0b9e4e1a-5d0c-4c1e-9a51-2f6d1c1e7b3a",
                "CONFIRMED", "v3", "completed", "25.05 EUR", "customer c-1");
    }
}
