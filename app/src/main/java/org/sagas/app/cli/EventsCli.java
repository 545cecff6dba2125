package org.sagas.app.cli;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import org.sagas.app.ConfigurationError;
import org.sagas.app.Settings;
import org.sagas.app.events.OrderEventsTail;
import org.sagas.app.events.PlaceOrderCommand;
import org.sagas.orchestrator.messaging.EventsDocument;
import org.sagas.orchestrator.messaging.KafkaConnection;
import org.sagas.orchestrator.messaging.MessageContracts;

/**
 * {@code ./sagas events}: the message contracts at a terminal (docs/events.md). {@code docs} prints
 * docs/events.md as the schemas generate it; {@code tail} prints {@code orders.events} one line per
 * event; {@code place} places an order through {@code orders.commands} and prints the outcome event
 * correlated to it. Kafka is {@code --bootstrap}, else SAGA_KAFKA_BOOTSTRAP (with SAGA_KAFKA_USER and
 * its password when the cluster signs in). Exit 0 done, 1 failed (no outcome in time, Kafka
 * unreachable), 2 usage.
 */
public final class EventsCli {
    static final int USAGE = 2;
    private static final Set<String> VALUED = Set.of("--bootstrap", "--customer", "--sku", "--quantity",
            "--price-cents", "--currency", "--idempotency-key", "--reference", "--timeout", "--order", "--count");
    private static final Set<String> FLAGS = Set.of("--from-beginning");

    private EventsCli() {}

    public static int run(String[] argv, Function<String, String> env, PrintStream out, PrintStream err) {
        List<String> args = Arrays.asList(argv);
        if (args.isEmpty() || args.contains("--help") || args.contains("-h") || args.get(0).equals("help")) {
            help(out);
            return args.isEmpty() ? USAGE : 0;
        }
        String verb = args.get(0);
        CliArgs a;
        try {
            a = CliArgs.parse(args.subList(1, args.size()), VALUED, FLAGS);
            if (!a.positional.isEmpty()) {
                throw new CliArgs.Wrong("unexpected " + a.positional.get(0));
            }
            switch (verb) {
                case "docs":
                    out.print(EventsDocument.generate(MessageContracts.standard()));
                    return 0;
                case "tail":
                    return OrderEventsTail.run(kafka(a, env), new OrderEventsTail.Options(a.has("--from-beginning"),
                            a.one("--order"), a.one("--count") == null ? Long.MAX_VALUE
                                    : positive(a, "--count"), timeout(a, Duration.ofDays(3650))), out, err);
                case "place":
                    return PlaceOrderCommand.run(kafka(a, env), placeOrder(a), timeout(a, Duration.ofSeconds(30)),
                            out, err);
                default:
                    throw new CliArgs.Wrong("unknown verb '" + verb + "' (see ./sagas events --help)");
            }
        } catch (CliArgs.Wrong | IllegalArgumentException e) {
            err.println("sagas events " + verb + ": " + e.getMessage());
            return USAGE;
        } catch (ConfigurationError e) {
            err.println("sagas events " + verb + ": " + e.getMessage());
            return 1;
        }
    }

    /** The command the options describe; keys and references not given are new ones. */
    private static PlaceOrderCommand.PlaceOrder placeOrder(CliArgs a) {
        String reference = a.one("--reference") != null ? a.one("--reference") : "cli-" + UUID.randomUUID();
        String key = a.one("--idempotency-key") != null ? a.one("--idempotency-key") : "cli-" + UUID.randomUUID();
        int quantity = a.one("--quantity") == null ? 1 : whole(a, "--quantity");
        return new PlaceOrderCommand.PlaceOrder(a.required("--customer"),
                a.one("--currency") == null ? "EUR" : a.one("--currency"),
                List.of(new PlaceOrderCommand.Line(a.required("--sku"), quantity, whole(a, "--price-cents"))),
                key, reference);
    }

    /** A whole number as given (its range is the contract's to judge). */
    private static int whole(CliArgs a, String option) {
        try {
            return Integer.parseInt(a.required(option));
        } catch (NumberFormatException e) {
            throw new CliArgs.Wrong(option + " must be a whole number, was '" + a.one(option) + "'");
        }
    }

    /** The settings' Kafka connection (signed in as SAGA_KAFKA_USER when set), at --bootstrap when given. */
    private static KafkaConnection kafka(CliArgs a, Function<String, String> env) {
        String given = a.one("--bootstrap");
        Function<String, String> withBootstrap = name -> name.equals("SAGA_KAFKA_BOOTSTRAP") && given != null
                ? given : env.apply(name);
        Settings settings = Settings.from(withBootstrap, Map.of());
        if (settings.embeddedKafka()) {
            throw new CliArgs.Wrong("say where Kafka is: --bootstrap HOST:PORT or SAGA_KAFKA_BOOTSTRAP"
                    + " (./sagas up prints it)");
        }
        return settings.kafka();
    }

    static long positive(CliArgs a, String option) {
        try {
            long v = Long.parseLong(a.one(option));
            if (v < 1) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new CliArgs.Wrong(option + " must be a positive whole number, was '" + a.one(option) + "'");
        }
    }

    private static Duration timeout(CliArgs a, Duration otherwise) {
        return a.one("--timeout") == null ? otherwise : Duration.ofSeconds(positive(a, "--timeout"));
    }

    private static void help(PrintStream out) {
        out.println("usage: ./sagas events <verb> [options]   (Kafka: --bootstrap HOST:PORT or SAGA_KAFKA_BOOTSTRAP)");
        out.println();
        out.println("  docs      print docs/events.md as the message contracts generate it");
        out.println("            (./sagas events docs > docs/events.md)");
        out.println("  tail      print orders.events, one line per event, as they come");
        out.println("            [--from-beginning] [--order ID] (only its events) [--count N] (stop after N)");
        out.println("            [--timeout S] (stop after S seconds)");
        out.println("  place     place an order through orders.commands and print its outcome event");
        out.println("            --customer ID --sku SKU [--quantity N] (1) --price-cents N [--currency C] (EUR)");
        out.println("            [--idempotency-key K] (a new one) [--reference R] (a new one) [--timeout S] (30)");
    }
}
