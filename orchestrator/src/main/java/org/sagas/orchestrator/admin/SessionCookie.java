package org.sagas.orchestrator.admin;

import io.javalin.http.Context;
import java.time.Duration;
import java.util.List;

/**
 * The console's cookie: a session id only (never a token), {@code HttpOnly} (scripts cannot read
 * it), {@code SameSite=Strict} (other sites cannot send it), {@code Secure} over TLS or when the
 * console is said to be behind it, and set once for each path that needs it — {@code /console}
 * (the pages, signing out) and {@code /admin} (the API calls) — so requests to other paths, the
 * public API's among them, never carry it. Browsers scope cookies by host, not port: these paths
 * are what keeps it from other listeners. Stateless.
 */
final class SessionCookie {
    static final String NAME = "sagas_admin";
    static final List<String> PATHS = List.of("/console", "/admin");
    /** Where earlier versions kept a cookie of this name, holding the token itself: dropped at sign-in and out. */
    private static final String FORMER_PATH = "/";

    private SessionCookie() {}

    /** The session id the request's cookie names, or null. */
    static String read(Context ctx) {
        String value = ctx.cookie(NAME);
        return value == null || value.isEmpty() ? null : value;
    }

    /** Sets the cookie of a new session, dropping any cookie of the name that earlier versions set. */
    static void open(Context ctx, String sessionId, Duration maxAge, boolean secureAlways) {
        set(ctx, sessionId, maxAge, secureAlways);
        drop(ctx, FORMER_PATH);
    }

    /** (Re)sets the cookie on every path for {@code maxAge} from now. */
    static void set(Context ctx, String sessionId, Duration maxAge, boolean secureAlways) {
        String attributes = "; Max-Age=" + Math.max(1, maxAge.toSeconds()) + "; HttpOnly; SameSite=Strict"
                + (secureAlways || ctx.req().isSecure() ? "; Secure" : "");
        for (String path : PATHS) {
            ctx.res().addHeader("Set-Cookie", NAME + "=" + sessionId + "; Path=" + path + attributes);
        }
    }

    /** Tells the browser to drop the cookie on every path. */
    static void clear(Context ctx) {
        drop(ctx, FORMER_PATH);
        PATHS.forEach(path -> drop(ctx, path));
    }

    private static void drop(Context ctx, String path) {
        ctx.res().addHeader("Set-Cookie", NAME + "=; Path=" + path + "; Max-Age=0; HttpOnly; SameSite=Strict");
    }
}
