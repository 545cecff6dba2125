package org.sagas.app.check;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.sagas.app.ConfigurationError;

/**
 * {@code ./sagas check}: the invariants against a running product, a table on stdout and with
 * {@code --json FILE} a JSON document. Exit codes: 0 every invariant holds, 1 one failed, 2 a wrong
 * command line or a product that cannot be read (one line on stderr saying why).
 */
public final class CheckCommand {
    public static final int HOLDS = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;

    private CheckCommand() {}

    /** A command line that cannot be read. */
    private static final class Wrong extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Wrong(String message) {
            super(message, null, false, false);
        }
    }

    /** The command line, read. */
    private record Args(CheckOptions options, Path json, boolean help) {}

    /**
     * @param target where the product is, from its settings; asked for only once the command line is
     *     good (so {@code --help} needs none); may throw {@link ConfigurationError}
     */
    public static int run(String[] args, Supplier<Target> target, PrintStream out, PrintStream err) {
        Args a;
        try {
            a = parse(args);
        } catch (Wrong e) {
            err.println("sagas check: error: " + e.getMessage() + " (see ./sagas check --help)");
            return USAGE;
        }
        if (a.help()) {
            help(out);
            return HOLDS;
        }
        Report report;
        try {
            report = Checker.run(target.get(), a.options());
        } catch (ConfigurationError | Unreachable e) {
            err.println("sagas check: error: " + e.getMessage());
            return USAGE;
        }
        ReportOutput.table(report, out);
        if (a.json() != null) {
            try {
                ReportOutput.writeJson(report, a.json());
            } catch (IOException e) {
                err.println("sagas check: error: cannot write " + a.json() + ": " + e.getMessage());
                return USAGE;
            }
        }
        return report.passed() ? HOLDS : FAILED;
    }

    private static Args parse(String[] args) {
        CheckOptions options = CheckOptions.defaults();
        Path json = null;
        Set<UUID> orders = new LinkedHashSet<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--help") || arg.equals("-h")) {
                return new Args(options, null, true);
            }
            String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            String value;
            if (!Set.of("--settle", "--outbox-age", "--json", "--order", "--max-ids").contains(name)) {
                throw new Wrong(arg.startsWith("-") ? "unknown option " + name : "unexpected argument '" + arg + "'");
            }
            if (arg.contains("=")) {
                value = arg.substring(arg.indexOf('=') + 1);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new Wrong("option " + name + " needs a value");
            }
            switch (name) {
                case "--settle" -> options = options.withSettle(seconds(name, value));
                case "--outbox-age" -> options = options.withOutboxAge(seconds(name, value));
                case "--max-ids" -> options = options.withMaxIds((int) whole(name, value, 1, 100_000));
                case "--order" -> orders.add(orderId(value));
                default -> json = path(value);
            }
        }
        return new Args(options.withOrders(orders), json, false);
    }

    /** Whole seconds, 0 to a day. */
    private static Duration seconds(String name, String value) {
        return Duration.ofSeconds(whole(name, value, 0, 86_400));
    }

    private static long whole(String name, String value, long min, long max) {
        try {
            long n = Long.parseLong(value.strip());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException notANumber) {
            // said below
        }
        throw new Wrong(name + " takes a whole number from " + min + " to " + max + " (got '" + value + "')");
    }

    private static UUID orderId(String value) {
        try {
            return UUID.fromString(value.strip());
        } catch (IllegalArgumentException e) {
            throw new Wrong("--order takes an order id (a UUID), got '" + value + "'");
        }
    }

    private static Path path(String value) {
        try {
            if (!value.isBlank()) {
                return Path.of(value);
            }
        } catch (InvalidPathException e) {
            // said below
        }
        throw new Wrong("--json takes a file name (got '" + value + "')");
    }

    static void help(PrintStream out) {
        out.println("usage: ./sagas check [--settle S] [--outbox-age S] [--json FILE] [--order ID]... [--max-ids N]");
        out.println();
        out.println("Checks the invariants against a running product (docs/operations.md, \"Checking the invariants\"):");
        for (Invariant i : Invariant.values()) {
            out.printf("  %-26s %s%n", i.name(), i.title());
        }
        out.println();
        out.println("It reads SAGA_DB_URL (+ SAGA_DB_USER, SAGA_DB_PASSWORD or _FILE), SAGA_KAFKA_BOOTSTRAP (+ SAGA_KAFKA_USER");
        out.println("and its password), SAGA_INVENTORY_URL, SAGA_PAYMENT_URL and SAGA_SANDBOX_LEDGER_TOKEN (or _FILE).");
        out.println();
        out.println("  --settle S       wait up to S seconds for accepted orders to become terminal (default "
                + CheckOptions.DEFAULT_SETTLE.toSeconds() + ")");
        out.println("  --outbox-age S   an outbox row unpublished longer than S seconds is stuck (default "
                + CheckOptions.DEFAULT_OUTBOX_AGE.toSeconds() + ")");
        out.println("  --json FILE      also write the report as JSON to FILE");
        out.println("  --order ID       judge only this order (repeatable); default every order");
        out.println("  --max-ids N      name at most N offending ids per invariant (default " + CheckOptions.DEFAULT_MAX_IDS
                + ")");
        out.println();
        out.println("exit codes: 0 every invariant holds, 1 one or more failed, 2 a wrong command line or a product");
        out.println("that cannot be read");
    }
}
