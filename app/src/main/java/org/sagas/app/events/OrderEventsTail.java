package org.sagas.app.events;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.time.Duration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.messaging.KafkaConnection;

/**
 * {@code ./sagas events tail}: {@code orders.events}, one line per event ({@link OrderEventLine}), as
 * they come, until {@code count} events were printed or {@code timeout} passed (or Ctrl-C).
 */
public final class OrderEventsTail {
    /**
     * @param order only the events of this order (its key or its body's {@code orderId}); null for all
     */
    public record Options(boolean fromBeginning, String order, long count, Duration timeout) {}

    private OrderEventsTail() {}

    /** @return 0 once {@code count} events were printed or the time ran out, 1 when Kafka could not be read */
    public static int run(KafkaConnection kafka, Options options, PrintStream out, PrintStream err) {
        long printed = 0;
        long end = System.nanoTime() + options.timeout().toNanos();
        try (OrderEventsReader reader = new OrderEventsReader(kafka, options.fromBeginning())) {
            while (printed < options.count() && System.nanoTime() - end < 0) {
                for (ConsumerRecord<String, byte[]> r : reader.poll(Duration.ofMillis(500))) {
                    if (printed < options.count() && about(r, options.order())) {
                        out.println(OrderEventLine.format(r));
                        out.flush();
                        printed++;
                    }
                }
            }
        } catch (RuntimeException e) {
            err.println("sagas events tail: cannot read orders.events: " + e.getMessage());
            return 1;
        }
        return 0;
    }

    private static boolean about(ConsumerRecord<String, byte[]> r, String order) {
        if (order == null) {
            return true;
        }
        if (order.equals(r.key())) {
            return true;
        }
        try {
            JsonNode body = r.value() == null ? null : Json.mapper().readTree(r.value());
            return body != null && order.equals(body.path("orderId").asText(null));
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
