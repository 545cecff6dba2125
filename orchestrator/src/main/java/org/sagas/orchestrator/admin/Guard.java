package org.sagas.orchestrator.admin;

import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may do what on the operator API. Every request needs a valid bearer token ({@code 401}
 * otherwise, before anything else: an unknown path reveals nothing); every write needs an
 * operator's token and a deployment that is not read-only ({@code 403}, audited as FORBIDDEN).
 * Thread-safe.
 */
final class Guard {
    /** A console request authenticated by its cookie must carry this header (cross-site forms cannot). */
    static final String CONSOLE_HEADER = "X-Sagas-Console";
    private static final String OPERATOR = "admin.operator";
    private static final Logger log = LoggerFactory.getLogger(Guard.class);

    private final AdminTokens tokens;
    private final ConsoleSessions sessions;
    private final AuthThrottle throttle;
    private final boolean readOnly;
    private final AuditLog audit;

    Guard(AdminTokens tokens, ConsoleSessions sessions, AuthThrottle throttle, boolean readOnly, AuditLog audit) {
        this.tokens = tokens;
        this.sessions = sessions;
        this.throttle = throttle;
        this.readOnly = readOnly;
        this.audit = audit;
    }

    boolean readOnly() {
        return readOnly;
    }

    /**
     * Before every route but the console's own: authenticates a console session (its cookie with
     * {@link #CONSOLE_HEADER}; the cookie renewed) or a bearer token, or answers 401 — or 429 to a
     * token from an address with too many failures ({@link AuthThrottle}).
     */
    void authenticate(Context ctx) {
        String header = ctx.header("Authorization");
        if (header == null && ctx.header(CONSOLE_HEADER) != null) {
            // A session id is 256 random bits, nothing to guess: a signed-in operator keeps working
            // while someone at the same address is throttled, and an ended session is no failure.
            String id = SessionCookie.read(ctx);
            ConsoleSessions.Active active = sessions.use(id).orElseThrow(() -> unauthorized(ctx,
                    "the console session has ended (signed out, or unused too long): sign in again"));
            SessionCookie.set(ctx, id, active.cookieMaxAge(), sessions.policy().secureCookie());
            ctx.attribute(OPERATOR, active.operator());
            return;
        }
        String address = ctx.req().getRemoteAddr();
        long wait = throttle.refusing(address);
        if (wait > 0) {
            throw throttled(ctx, wait);
        }
        boolean bearer = header != null && header.regionMatches(true, 0, "Bearer ", 0, 7);
        Optional<Operator> who = tokens.authenticate(bearer ? header.substring(7).strip() : null);
        if (who.isEmpty()) {
            long over = throttle.failed(address, AuthThrottle.Attempt.API);
            throw over > 0 ? throttled(ctx, over) : unauthorized(ctx, header == null
                    ? "send Authorization: Bearer <token> (an admin token: SAGA_ADMIN_TOKEN or SAGA_ADMIN_TOKENS_FILE)"
                    : "the token is not valid");
        }
        ctx.attribute(OPERATOR, who.get());
    }

    private static AdminRefusal unauthorized(Context ctx, String detail) {
        ctx.header("WWW-Authenticate", "Bearer realm=\"sagas-admin\"");
        return new AdminRefusal(401, "unauthorized", "Authentication required", detail, Map.of());
    }

    /** The answer to a token from an address whose failures are spent: {@code 429}, {@code Retry-After}. */
    static AdminRefusal throttled(Context ctx, long retryAfterSeconds) {
        ctx.header("Retry-After", Long.toString(retryAfterSeconds));
        return new AdminRefusal(429, AuthThrottle.THROTTLED, "Too many failed authentications",
                "too many wrong tokens came from this address: none is checked for " + retryAfterSeconds + " s",
                Map.of());
    }

    /** The caller, as authenticated. */
    static Operator who(Context ctx) {
        return ctx.attribute(OPERATOR);
    }

    /** {@code handler} as a write: only an operator's, never in read-only mode. */
    Handler write(String action, Function<Context, String> target, Handler handler) {
        return ctx -> {
            Operator who = who(ctx);
            if (readOnly || !who.mayWrite()) {
                String why = readOnly ? "the operator API is read-only (SAGA_ADMIN_READ_ONLY=true)"
                        : "token " + who.name() + " is a viewer's: it may read, not write";
                String on = abbreviate(target.apply(ctx));
                log.warn("refused {} on {} by {} ({}): {}", action, on, who.name(), who.role().text(), why);
                audit.record(new AuditLog.Line(who, action, on, null, "FORBIDDEN", why, null));
                throw new AdminRefusal(403, readOnly ? "read-only" : "forbidden", "Forbidden", why, Map.of());
            }
            handler.handle(ctx);
        };
    }

    private static String abbreviate(String target) {
        return target.length() <= 300 ? target : target.substring(0, 300);
    }
}
