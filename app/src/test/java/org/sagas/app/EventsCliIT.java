package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sagas.app.GameDay.SETTLE;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.sagas.app.cli.EventsCli;
import org.sagas.testkit.RealInfrastructure;

/**
 * The README's "Orders through Kafka" at a terminal, against the shared product: {@code ./sagas
 * events place} places an order through orders.commands and prints its outcome, {@code ./sagas events
 * tail} prints the order's events one line each; a command that breaks its contract is refused
 * before it is sent.
 */
@RealInfrastructure
class EventsCliIT extends GameDayLifecycle {
    private static final Pattern ORDER = Pattern.compile("order ([0-9a-f-]{36})");

    @Test
    void shouldPlaceAnOrderThroughKafkaPrintItsOutcomeAndTailItsEventsToConfirmed() {
        // Given stock
        String sku = Submissions.sku();
        product.stock(sku, 5);
        String reference = "cli-ref-" + UUID.randomUUID();

        // When a person places an order from the terminal
        Run place = cli("place", "--bootstrap", bootstrap, "--customer", "c-cli", "--sku", sku, "--quantity", "2",
                "--price-cents", "1250", "--reference", reference, "--idempotency-key", Submissions.key());

        // Then it prints the outcome correlated to its command: accepted, naming the order
        assertThat(place.code()).as(place.toString()).isZero();
        assertThat(place.out()).contains("OrderCommandAccepted", "PlaceOrder accepted: AWAITING_PAYMENT",
                "reference " + reference);
        Matcher m = ORDER.matcher(place.out());
        assertThat(m.find()).as(place.out()).isTrue();
        UUID order = UUID.fromString(m.group(1));
        product.awaitStatus(order, "CONFIRMED", SETTLE);

        // And tail shows the order's events, one line each, in their order
        Run tail = cli("tail", "--bootstrap", bootstrap, "--from-beginning", "--order", order.toString(), "--count",
                "3", "--timeout", "30");
        assertThat(tail.code()).as(tail.toString()).isZero();
        List<String> lines = tail.out().lines().toList();
        assertThat(lines).hasSize(3).allSatisfy(l -> assertThat(l).contains(order.toString()));
        assertThat(lines.stream().filter(l -> l.contains("OrderStatusChanged")).map(l -> l.contains("CONFIRMED")
                ? "CONFIRMED" : l.contains("AWAITING_PAYMENT") ? "AWAITING_PAYMENT" : l).toList())
                .containsExactly("AWAITING_PAYMENT", "CONFIRMED");
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("OrderCommandAccepted", "PlaceOrder accepted"));
        assertThat(lines).filteredOn(l -> l.contains("OrderStatusChanged"))
                .allSatisfy(l -> assertThat(l).contains("25.00 EUR", "customer c-cli"));
    }

    @Test
    void shouldRefuseACommandThatBreaksItsContractBeforeSendingIt() {
        // When a person asks for a quantity of zero
        Run place = cli("place", "--bootstrap", bootstrap, "--customer", "c-cli", "--sku", "SKU-1", "--quantity", "0",
                "--price-cents", "100", "--timeout", "1");

        // Then it is refused with the contract's reason, and nothing was sent (no wait for an outcome)
        assertThat(place.code()).isEqualTo(2);
        assertThat(place.err()).contains("breaks its contract", "PlaceOrder.v1", "quantity");
        assertThat(place.out()).doesNotContain("sent PlaceOrder");
    }

    private record Run(int code, String out, String err) {}

    private static Run cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = EventsCli.run(args, Map.<String, String>of()::get, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
