package org.sagas.orchestrator.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The public API's clients, from a keys file: one line per key, {@code key customerId[,customerId…]
 * [priority] [rate=N] [burst=N] [pending=N]}, the options in any order, each at most once; blank
 * lines and lines starting with {@code #} are ignored. A key acts only for its customers; the word
 * {@code priority} lets it set {@code X-Priority}; {@code rate}, {@code burst} and {@code pending}
 * are its own submission rate, burst and share of pending confirmations ({@link Limits}), in place of
 * the defaults every other client has (docs/security.md).
 *
 * <p>Presented keys are compared in constant time: each is hashed (SHA-256) and compared with
 * every stored digest by {@link MessageDigest#isEqual}, without stopping at the first match, so the
 * time taken says nothing about which key, or how much of one, was right. Immutable and thread-safe.
 */
public final class ApiKeys {
    /** Keys shorter than this are accepted but easy to guess; the launcher warns about them. */
    public static final int RECOMMENDED_LENGTH = 16;

    /**
     * One key's rights. {@code name} is safe to log and to key quotas and {@code Idempotency-Key}s
     * on: a short digest of the key, never the key itself, and no two keys of a file share one.
     */
    public record Client(String name, Set<String> customers, boolean priority, Limits limits) {
        public Client {
            customers = Set.copyOf(customers);
        }
    }

    /**
     * A key's own limits, each empty where the defaults apply ({@code SAGA_CLIENT_RATE},
     * {@code SAGA_CLIENT_BURST}, {@code SAGA_CLIENT_PENDING_CAP}).
     *
     * @param rate submissions per second, 0 for no limit
     * @param burst submissions at once beyond the rate
     * @param pendingCap most orders pending confirmation
     */
    public record Limits(OptionalInt rate, OptionalInt burst, OptionalInt pendingCap) {
        /** The defaults, every one. */
        public static final Limits DEFAULTS = new Limits(OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty());
    }

    /** An option's name, and the values it takes (as the setting it overrides). */
    private enum Option {
        RATE("rate", 0, 1_000_000),
        BURST("burst", 1, 10_000_000),
        PENDING("pending", 1, 10_000_000);

        final String word;
        final int min;
        final int max;

        Option(String word, int min, int max) {
            this.word = word;
            this.min = min;
            this.max = max;
        }

        static Optional<Option> named(String word) {
            for (Option o : values()) {
                if (o.word.equals(word)) {
                    return Optional.of(o);
                }
            }
            return Optional.empty();
        }
    }

    private static final String FORMAT = "'key customerId[,customerId…] [priority] [rate=N] [burst=N] [pending=N]'";

    private record Entry(byte[] digest, Client client) {}

    private final List<Entry> entries;
    private final int shortKeys;

    private ApiKeys(List<Entry> entries, int shortKeys) {
        this.entries = List.copyOf(entries);
        this.shortKeys = shortKeys;
    }

    /**
     * Parses a keys file's lines.
     *
     * @throws IllegalArgumentException naming the line (never the key) that is wrong, or if no key is given
     */
    public static ApiKeys parse(List<String> lines) {
        List<Entry> entries = new ArrayList<>();
        int shortKeys = 0;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String where = "line " + (i + 1);
            String[] columns = line.split("\\s+");
            if (columns.length < 2) {
                throw new IllegalArgumentException(where + ": expected " + FORMAT);
            }
            Set<String> customers = new LinkedHashSet<>();
            for (String customer : columns[1].split(",")) {
                if (customer.isEmpty() || customer.length() > 64) {
                    throw new IllegalArgumentException(where + ": customer ids are 1 to 64 characters, comma-separated");
                }
                customers.add(customer);
            }
            byte[] digest = sha256(columns[0]);
            String name = "key-" + HexFormat.of().formatHex(digest, 0, 4);
            for (Entry e : entries) {
                if (MessageDigest.isEqual(e.digest(), digest)) {
                    throw new IllegalArgumentException(where + ": the same key is on an earlier line");
                }
                // The name keys quotas and Idempotency-Keys: two keys sharing one would share both.
                if (e.client().name().equals(name)) {
                    throw new IllegalArgumentException(where + ": this key's digest name " + name
                            + " is an earlier key's too; use another key");
                }
            }
            if (columns[0].length() < RECOMMENDED_LENGTH) {
                shortKeys++;
            }
            entries.add(new Entry(digest, client(name, customers, columns, where)));
        }
        if (entries.isEmpty()) {
            throw new IllegalArgumentException("no key in the file");
        }
        return new ApiKeys(entries, shortKeys);
    }

    /** The client of a line whose columns from the third on are its options. */
    private static Client client(String name, Set<String> customers, String[] columns, String where) {
        boolean priority = false;
        Map<Option, Integer> limits = new EnumMap<>(Option.class);
        for (int c = 2; c < columns.length; c++) {
            if (columns[c].equals("priority")) {
                if (priority) {
                    throw new IllegalArgumentException(where + ": 'priority' is given twice");
                }
                priority = true;
            } else {
                option(columns[c], where + ", column " + (c + 1), limits);
            }
        }
        return new Client(name, customers, priority, new Limits(limit(limits, Option.RATE),
                limit(limits, Option.BURST), limit(limits, Option.PENDING)));
    }

    /**
     * Reads one {@code name=value} column into {@code limits}. The column is never quoted back: a line
     * written wrongly may hold a key anywhere.
     */
    private static void option(String column, String where, Map<Option, Integer> limits) {
        int equals = column.indexOf('=');
        Optional<Option> named = equals < 0 ? Optional.empty() : Option.named(column.substring(0, equals));
        if (named.isEmpty()) {
            throw new IllegalArgumentException(where + ": unknown option; options are 'priority', 'rate=N',"
                    + " 'burst=N' and 'pending=N'");
        }
        Option option = named.get();
        String value = column.substring(equals + 1);
        long number = value.matches("[0-9]{1,9}") ? Long.parseLong(value) : -1;
        if (number < option.min || number > option.max) {
            throw new IllegalArgumentException(where + ": " + option.word + " must be a whole number from "
                    + option.min + " to " + option.max);
        }
        if (limits.putIfAbsent(option, (int) number) != null) {
            throw new IllegalArgumentException(where + ": " + option.word + " is given twice");
        }
    }

    private static OptionalInt limit(Map<Option, Integer> limits, Option option) {
        Integer value = limits.get(option);
        return value == null ? OptionalInt.empty() : OptionalInt.of(value);
    }

    /** The client whose key this is, compared in constant time; empty for an unknown key. */
    public Optional<Client> authenticate(String presented) {
        byte[] digest = sha256(presented);
        Client found = null;
        for (Entry e : entries) {
            if (MessageDigest.isEqual(e.digest(), digest)) {
                found = e.client(); // no early exit: every key costs the same
            }
        }
        return Optional.ofNullable(found);
    }

    /** How many keys there are. */
    public int size() {
        return entries.size();
    }

    /** How many keys are shorter than {@link #RECOMMENDED_LENGTH}. */
    public int shortKeys() {
        return shortKeys;
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
