package org.sagas.orchestrator.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The public API's clients, from a keys file: one line per key, {@code key customerId[,customerId…]
 * [priority]}; blank lines and lines starting with {@code #} are ignored. A key acts only for its
 * customers; the word {@code priority} in the third column lets it set {@code X-Priority}.
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
    public record Client(String name, Set<String> customers, boolean priority) {
        public Client {
            customers = Set.copyOf(customers);
        }
    }

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
            if (columns.length < 2 || columns.length > 3) {
                throw new IllegalArgumentException(where + ": expected 'key customerId[,customerId…] [priority]'");
            }
            if (columns.length == 3 && !columns[2].equals("priority")) {
                throw new IllegalArgumentException(where + ": the third column may only be the word 'priority'");
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
            entries.add(new Entry(digest, new Client(name, customers, columns.length == 3)));
        }
        if (entries.isEmpty()) {
            throw new IllegalArgumentException("no key in the file");
        }
        return new ApiKeys(entries, shortKeys);
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
