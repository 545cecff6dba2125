package org.sagas.sandbox;

import io.javalin.http.Handler;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * What the sandboxes serve beyond the participant protocol (docs/security.md, "The sandboxes"):
 * whether the controls exist at all ({@code PUT /_faults}, {@code GET /_faults}, {@code PUT /stock/{sku}},
 * {@code GET /_traceparents/{key}}), and the bearer token the ledgers ask for ({@code GET /charges},
 * {@code GET /reservations}, listings and change feeds). Without controls those routes are not
 * registered, so they answer 404 as any unknown path. Without a token the ledgers answer 401 to
 * everyone. Tokens are compared in constant time (SHA-256 digests, {@link MessageDigest#isEqual}).
 * Immutable, thread-safe.
 */
public final class SandboxAccess {
    private static final String BEARER = "bearer ";

    private final boolean controls;
    /** SHA-256 of the ledger token; null: no token, the ledgers are closed. */
    private final byte[] ledgerDigest;

    private SandboxAccess(boolean controls, String ledgerToken) {
        this.controls = controls;
        this.ledgerDigest = ledgerToken == null || ledgerToken.isEmpty() ? null : sha256(ledgerToken);
    }

    /**
     * @param controls whether the fault, stock and trace routes exist
     * @param ledgerToken the bearer token the ledgers accept; null or empty: they accept none
     */
    public static SandboxAccess of(boolean controls, String ledgerToken) {
        return new SandboxAccess(controls, ledgerToken);
    }

    /** Whether the fault, stock and trace routes exist. */
    public boolean controls() {
        return controls;
    }

    /** Whether some token opens the ledgers. */
    public boolean ledgersOpen() {
        return ledgerDigest != null;
    }

    /** {@code handler}, run only for a request that carries the ledger token; else 401. */
    Handler ledger(Handler handler) {
        return ctx -> {
            if (!mayReadLedgers(ctx.header("Authorization"))) {
                ctx.header("WWW-Authenticate", "Bearer realm=\"sandbox-ledgers\"");
                throw Problem.unauthorized(ledgerDigest == null
                        ? "the ledgers are closed: the sandbox runs without a ledger token"
                        : "the ledgers need Authorization: Bearer <ledger token>");
            }
            handler.handle(ctx);
        };
    }

    /** Whether {@code authorization} ({@code Bearer <token>}) names the ledger token; constant time. */
    boolean mayReadLedgers(String authorization) {
        if (ledgerDigest == null || authorization == null
                || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return false;
        }
        return MessageDigest.isEqual(ledgerDigest, sha256(authorization.substring(BEARER.length()).strip()));
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    @Override
    public String toString() {
        return "SandboxAccess[controls=" + (controls ? "on" : "off") + ", ledgers="
                + (ledgerDigest == null ? "closed" : "token") + "]";
    }
}
