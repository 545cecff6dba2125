package org.sagas.orchestrator.admin;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The bearer tokens the operator API accepts: lines {@code name role token} from a tokens file, and
 * one operator token from the environment. A presented token is compared with every known one in
 * constant time (SHA-256 digests compared with {@link MessageDigest#isEqual}, no early exit), so
 * the answer's timing says nothing about how much of a token was right. Immutable, thread-safe.
 */
public final class AdminTokens {
    /** The name the environment's (or a generated) operator token has in the audit. */
    public static final String ENV_TOKEN_NAME = "admin";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._@-]{1,100}");

    private record Entry(Operator operator, byte[] digest) {}

    private final List<Entry> entries;

    private AdminTokens(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /**
     * Reads the tokens file's lines (blank lines and {@code #} comments skipped) and the operator
     * token from the environment (null or blank: none).
     *
     * @param source how to name the file in errors
     * @throws IllegalArgumentException naming the line that is wrong
     */
    public static AdminTokens parse(List<String> lines, String source, String envToken) {
        List<Entry> entries = new ArrayList<>();
        Set<String> names = new HashSet<>();
        Set<String> tokens = new HashSet<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String where = source + " line " + (i + 1);
            String[] parts = line.split("\\s+");
            if (parts.length != 3) {
                throw new IllegalArgumentException(where + ": expected 'name role token', got " + parts.length
                        + " fields");
            }
            if (!NAME.matcher(parts[0]).matches()) {
                throw new IllegalArgumentException(where + ": name must be 1-100 of A-Z a-z 0-9 . _ @ -");
            }
            Role role;
            try {
                role = Role.of(parts[1]);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
            }
            add(entries, names, tokens, new Operator(parts[0], role), parts[2], where);
        }
        if (envToken != null && !envToken.isBlank()) {
            add(entries, names, tokens, new Operator(ENV_TOKEN_NAME, Role.OPERATOR), envToken.strip(),
                    "SAGA_ADMIN_TOKEN");
        }
        return new AdminTokens(entries);
    }

    /** One operator token (a generated one, or tests'). */
    public static AdminTokens operator(String token) {
        return parse(List.of(), "none", token);
    }

    private static void add(List<Entry> entries, Set<String> names, Set<String> tokens, Operator who, String token,
            String where) {
        if (!names.add(who.name())) {
            throw new IllegalArgumentException(where + ": the name " + who.name() + " is taken"
                    + (who.name().equals(ENV_TOKEN_NAME) ? " (by SAGA_ADMIN_TOKEN's)" : ""));
        }
        if (!tokens.add(token)) {
            throw new IllegalArgumentException(where + ": this token is already given to another name");
        }
        entries.add(new Entry(who, digest(token)));
    }

    public boolean isEmpty() {
        return entries.isEmpty();
    }

    public int size() {
        return entries.size();
    }

    /** The operator whose token {@code presented} is; empty when none is. Constant time in the match. */
    public Optional<Operator> authenticate(String presented) {
        if (presented == null) {
            return Optional.empty();
        }
        byte[] digest = digest(presented);
        Operator found = null;
        for (Entry e : entries) {
            // Every entry is compared, matched or not.
            if (MessageDigest.isEqual(digest, e.digest()) & found == null) {
                found = e.operator();
            }
        }
        return Optional.ofNullable(found);
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 missing from this JDK", e);
        }
    }
}
