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
    private final boolean readOnly;
    private final AuditLog audit;

    Guard(AdminTokens tokens, ConsoleSessions sessions, boolean readOnly, AuditLog audit) {
        this.tokens = tokens;
        this.sessions = sessions;
        this.readOnly = readOnly;
        this.audit = audit;
    }

    boolean readOnly() {
        return readOnly;
    }

    /**
     * Before every route but the console's own: authenticates a bearer token, or a console
     * session (its cookie with {@link #CONSOLE_HEADER}, the cookie renewed), or answers 401.
     */
    void authenticate(Context ctx) {
        String header = ctx.header("Authorization");
        Optional<Operator> who;
        if (header == null && ctx.header(CONSOLE_HEADER) != null) {
            who = sessions.use(SessionCookie.read(ctx)).map(active -> {
                SessionCookie.set(ctx, SessionCookie.read(ctx), active.cookieMaxAge(),
                        sessions.policy().secureCookie());
                return active.operator();
            });
        } else {
            boolean bearer = header != null && header.regionMatches(true, 0, "Bearer ", 0, 7);
            who = tokens.authenticate(bearer ? header.substring(7).strip() : null);
        }
        if (who.isEmpty()) {
            ctx.header("WWW-Authenticate", "Bearer realm=\"sagas-admin\"");
            throw new AdminRefusal(401, "unauthorized", "Authentication required", header == null
                    ? "send Authorization: Bearer <token> (an admin token: SAGA_ADMIN_TOKEN or SAGA_ADMIN_TOKENS_FILE)"
                    : "the token is not valid", Map.of());
        }
        ctx.attribute(OPERATOR, who.get());
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
