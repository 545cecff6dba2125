package org.sagas.app.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.sagas.app.AdminTokenFile;

/**
 * {@code ./sagas admin <verb>}: the operator API from a terminal (docs/operations-admin.md). Tables for
 * people, {@code --json} for scripts (the API's answer as it is), {@code --help} on every verb.
 * Exit codes: 0 done, 1 refused or failed (the reason on stderr), 2 a wrong command line, 3 the
 * operator API cannot be reached.
 */
public final class AdminCli {
    static final int USAGE = 2;
    static final Set<String> GLOBAL = Set.of("--url", "--token", "--token-file");
    static final Map<String, String> FILTERS = filters();

    /** One verb: how it is written, what it takes, what it does. */
    private record Verb(String name, String usage, String summary, Set<String> valued, Set<String> flags,
            int minWords, int maxWords) {}

    private static final List<Verb> VERBS = List.of(
            new Verb("whoami", "whoami", "the token's name and role, and whether it may write", Set.of(), Set.of(), 0,
                    0),
            new Verb("sagas", "sagas [filters] [--limit N] [--cursor C] [--all]",
                    "find sagas (newest first); --all follows every page", withFilters("--limit", "--cursor"),
                    Set.of("--all"), 0, 0),
            new Verb("saga", "saga ORDER_ID", "everything about one order: saga, history, outbox, participants, audit",
                    Set.of(), Set.of(), 1, 1),
            new Verb("retry", "retry ORDER_ID [--reason TEXT]", "run the waiting step now, or re-send the awaited"
                    + " command (same participant key)", Set.of("--reason"), Set.of(), 1, 1),
            new Verb("cancel", "cancel ORDER_ID [--reason TEXT]", "release the stock, refund a charge, end CANCELLED"
                    + " with a notice to the customer", Set.of("--reason"), Set.of(), 1, 1),
            new Verb("resolve-payment", "resolve-payment ORDER_ID --outcome CAPTURED|DECLINED [--reason TEXT]",
                    "settle a PAYMENT_UNKNOWN order as the provider's answer would", Set.of("--outcome", "--reason"),
                    Set.of(), 1, 1),
            new Verb("batch", "batch start --action retry|cancel [filters] [--rate N] [--dry-run] [--reason TEXT]\n"
                    + "         batch show BATCH_ID | batch stop BATCH_ID [--reason TEXT] | batch list [--state S]",
                    "act on every saga a filter matches, paced; follow or stop it",
                    withFilters("--action", "--rate", "--reason", "--state", "--limit"), Set.of("--dry-run"), 1, 2),
            new Verb("migrate", "migrate --to-version N [filters] [--rate N] [--dry-run] [--reason TEXT]",
                    "move the sagas a filter matches to another definition version (a batch; the dry run shows"
                    + " what each of the first ones would become)", withFilters("--to-version", "--rate", "--reason"),
                    Set.of("--dry-run"), 0, 0),
            new Verb("definitions", "definitions", "each saga definition version: its live sagas by status, the live"
                    + " processes that have it, whether new sagas start on it, whether it may be retired",
                    Set.of(), Set.of(), 0, 0),
            new Verb("incidents", "incidents [--cause CAUSE] [--limit N] [--cursor C]",
                    "sagas that cannot go on without an operator, with their cause",
                    Set.of("--cause", "--limit", "--cursor"), Set.of(), 0, 0),
            new Verb("dead-letters", "dead-letters outbox | outbox replay ID | outbox discard ID [--reason TEXT]\n"
                    + "         dead-letters kafka [--topic T] [--limit N]\n"
                    + "         dead-letters kafka redrive --topic T --partition P --offset O [--reason TEXT] [--force]",
                    "outbox rows the broker refused, and Kafka dead-letter topics",
                    Set.of("--topic", "--partition", "--offset", "--reason", "--limit"), Set.of("--force"), 1, 3),
            new Verb("audit", "audit [--limit N] [--target T] [--actor A] [--action A] [--batch ID]",
                    "who did what, on what, why, when, and the outcome (newest first)",
                    Set.of("--limit", "--target", "--actor", "--action", "--batch"), Set.of(), 0, 0));

    private AdminCli() {}

    public static int run(String[] argv, Function<String, String> env, PrintStream out, PrintStream err) {
        List<String> args = new ArrayList<>(Arrays.asList(argv));
        if (args.isEmpty() || args.get(0).equals("--help") || args.get(0).equals("-h") || args.get(0).equals("help")) {
            help(out);
            return args.isEmpty() ? USAGE : 0;
        }
        String name = args.remove(0);
        Verb verb = VERBS.stream().filter(v -> v.name().equals(name)).findFirst().orElse(null);
        if (verb == null) {
            err.println("sagas admin: unknown verb '" + name + "' (see ./sagas admin --help)");
            return USAGE;
        }
        if (args.contains("--help") || args.contains("-h")) {
            verbHelp(verb, out);
            return 0;
        }
        CliArgs a;
        AdminClient client;
        try {
            Set<String> valued = new java.util.HashSet<>(verb.valued());
            valued.addAll(GLOBAL);
            Set<String> flags = new java.util.HashSet<>(verb.flags());
            flags.add("--json");
            a = CliArgs.parse(args, valued, flags);
            if (a.positional.size() < verb.minWords() || a.positional.size() > verb.maxWords()) {
                throw new CliArgs.Wrong("usage: ./sagas admin " + verb.usage());
            }
            client = new AdminClient(URI.create(url(a, env)), token(a, env));
        } catch (CliArgs.Wrong | IllegalArgumentException e) {
            err.println("sagas admin " + name + ": " + e.getMessage());
            return USAGE;
        }
        try {
            return new AdminVerbs(client, a, out).run(name);
        } catch (CliArgs.Wrong e) {
            err.println("sagas admin " + name + ": " + e.getMessage());
            return USAGE;
        } catch (AdminClient.Failure f) {
            if (a.has("--json") && f.body() != null) {
                out.println(f.body().toPrettyString());
            }
            err.println("sagas admin " + name + ": " + f.getMessage());
            return f.exitCode();
        }
    }

    private static String url(CliArgs a, Function<String, String> env) {
        String url = a.one("--url");
        if (url == null) {
            url = env.apply("SAGA_ADMIN_URL");
        }
        url = url == null || url.isBlank() ? "http://127.0.0.1:8090" : url.strip();
        if (!url.startsWith("http://") && !url.startsWith("https://")) {
            throw new CliArgs.Wrong("SAGA_ADMIN_URL / --url must start with http:// or https:// (got " + url + ")");
        }
        return url;
    }

    /** What the command line says first (--token, --token-file), else SAGA_ADMIN_TOKEN, else the data directory's file. */
    private static String token(CliArgs a, Function<String, String> env) {
        String token = a.one("--token");
        if (token != null && !token.isBlank()) {
            return token.strip();
        }
        String file = a.one("--token-file");
        if (file == null) {
            token = env.apply("SAGA_ADMIN_TOKEN");
            if (token != null && !token.isBlank()) {
                return token.strip();
            }
            String dataDir = env.apply("SAGA_DATA_DIR");
            if (dataDir != null && !dataDir.isBlank()) {
                file = Path.of(dataDir, AdminTokenFile.NAME).toString();
            }
        }
        if (file == null) {
            throw new CliArgs.Wrong("no admin token: set SAGA_ADMIN_TOKEN (./sagas up prints where it wrote one),"
                    + " or pass --token-file FILE");
        }
        try {
            return Files.readString(Path.of(file)).strip();
        } catch (IOException e) {
            throw new CliArgs.Wrong("cannot read the admin token from " + file + ": " + e.getMessage());
        }
    }

    /** The saga filters as options, mapped to the API's names. */
    private static Map<String, String> filters() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("--status", "status");
        m.put("--customer", "customerId");
        m.put("--key", "idempotencyKey");
        m.put("--step", "step");
        m.put("--parked-on", "parkedOn");
        m.put("--incident", "incident");
        m.put("--stuck-for", "stuckForSeconds");
        m.put("--created-from", "createdFrom");
        m.put("--created-to", "createdTo");
        m.put("--version", "version");
        return m;
    }

    private static Set<String> withFilters(String... more) {
        Set<String> s = new java.util.HashSet<>(FILTERS.keySet());
        s.addAll(Arrays.asList(more));
        return s;
    }

    private static void help(PrintStream out) {
        out.println("usage: ./sagas admin <verb> [options]");
        out.println();
        out.println("Drives the operator API (SAGA_ADMIN_URL, default http://127.0.0.1:8090) with an admin token");
        out.println("(--token T or --token-file FILE, else SAGA_ADMIN_TOKEN, else <SAGA_DATA_DIR>/admin-token).");
        out.println();
        out.println("verbs:");
        for (Verb v : VERBS) {
            out.printf("  %-16s %s%n", v.name(), v.summary());
        }
        out.println();
        out.println("filters (sagas, batch start): --status S (repeat or S1,S2) --customer C --key IDEMPOTENCY_KEY");
        out.println("  --step STEP --parked-on DEPENDENCY --incident CAUSE|any --stuck-for SECONDS");
        out.println("  --created-from TIME --created-to TIME (e.g. 2026-11-29T10:00:00Z) --version N");
        out.println("every verb: --json (the API's answer, for scripts), --url URL, --token T, --help");
        out.println("exit codes: 0 done, 1 refused or failed, 2 wrong command line, 3 operator API unreachable");
    }

    private static void verbHelp(Verb v, PrintStream out) {
        out.println("usage: ./sagas admin " + v.usage());
        out.println();
        out.println(v.summary() + ".");
        if (v.valued().contains("--status")) {
            out.println();
            out.println("filters: --status S (repeat or S1,S2) --customer C --key IDEMPOTENCY_KEY --step STEP");
            out.println("  --parked-on DEPENDENCY --incident CAUSE|any --stuck-for SECONDS --created-from TIME");
            out.println("  --created-to TIME");
        }
        out.println();
        out.println("options of every verb: --json --url URL --token T --token-file FILE");
    }
}
