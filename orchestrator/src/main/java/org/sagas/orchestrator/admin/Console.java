package org.sagas.orchestrator.admin;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operations console ({@code GET /console/}): a login form that takes an admin token and opens
 * a server-side session for it ({@link ConsoleSessions}; the cookie carries the session's id, see
 * {@link SessionCookie}), and one page that drives the same {@code /admin} API (every call carries
 * {@link Guard#CONSOLE_HEADER}, which a cross-site form cannot send). The token's role applies as
 * on the API. Signing out ends the session. Its script and style sheet are files of the jar served
 * here ({@code console.js}, {@code console.css}), so the Content-Security-Policy allows no inline
 * script or style at all; they hold no data and are served without a token. Thread-safe.
 */
final class Console {
    private static final Logger log = LoggerFactory.getLogger(Console.class);
    private final AdminTokens tokens;
    private final ConsoleSessions sessions;
    private final AuthThrottle throttle;
    private final String loginPage = resource("login.html");
    private final String appPage = resource("console.html");
    private final String script = resource("console.js");
    private final String style = resource("console.css");

    Console(AdminTokens tokens, ConsoleSessions sessions, AuthThrottle throttle) {
        this.tokens = tokens;
        this.sessions = sessions;
        this.throttle = throttle;
    }

    /** The console's own routes authenticate by themselves (the login form has no token yet). */
    static boolean isPublic(Context ctx) {
        return ctx.path().equals("/console") || ctx.path().startsWith("/console/");
    }

    void register(RoutesConfig routes) {
        routes.get("/console/", ctx -> {
            String id = SessionCookie.read(ctx);
            var active = sessions.use(id);
            active.ifPresent(a -> SessionCookie.set(ctx, id, a.cookieMaxAge(), sessions.policy().secureCookie()));
            html(ctx, 200, active.isPresent() ? appPage : loginPage.replace("{{error}}", ""));
        });
        routes.get("/console/console.js", ctx -> asset(ctx, "text/javascript; charset=utf-8", script));
        routes.get("/console/console.css", ctx -> asset(ctx, "text/css; charset=utf-8", style));
        routes.get("/console/favicon.svg", ctx -> asset(ctx, "image/svg+xml", ICON));
        routes.post("/console/login", this::signIn);
        routes.post("/console/logout", ctx -> {
            if (sessions.close(SessionCookie.read(ctx))) {
                log.info("console session signed out from {}", ctx.req().getRemoteAddr());
            }
            SessionCookie.clear(ctx);
            ctx.redirect("/console/", HttpStatus.SEE_OTHER);
        });
    }

    private void signIn(Context ctx) {
        String address = ctx.req().getRemoteAddr();
        long wait = throttle.refusing(address);
        if (wait == 0) {
            String token = ctx.formParam("token");
            Optional<Operator> who = token == null ? Optional.empty() : tokens.authenticate(token.strip());
            if (who.isPresent()) {
                openSession(ctx, who.get());
                return;
            }
            wait = throttle.failed(address, AuthThrottle.Attempt.SIGN_IN);
            if (wait == 0) {
                html(ctx, 401, loginPage.replace("{{error}}", "<p class=error>That token is not valid.</p>"));
                return;
            }
        }
        AdminRefusal refusal = Guard.throttled(ctx, wait);
        if (ctx.header("Accept") != null && ctx.header("Accept").contains("text/html")) {
            // A person at the form: the same answer, as a page.
            html(ctx, 429, loginPage.replace("{{error}}", "<p class=error>Too many wrong tokens from this address:"
                    + " try again in " + wait + " s.</p>"));
            return;
        }
        throw refusal;
    }

    private void openSession(Context ctx, Operator who) {
        String id = sessions.open(who);
        log.info("console session opened for {} ({}) from {}", who.name(), who.role().text(),
                ctx.req().getRemoteAddr());
        SessionCookie.open(ctx, id, sessions.policy().idle(), sessions.policy().secureCookie());
        ctx.redirect("/console/", HttpStatus.SEE_OTHER);
    }

    /** A small mark for the browser's tab (without it, browsers ask for /favicon.ico and get a 401). */
    private static final String ICON = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\">"
            + "<rect width=\"16\" height=\"16\" rx=\"3\" fill=\"#16213a\"/><path d=\"M4 11h8M4 8h8M4 5h5\""
            + " stroke=\"#ffbf47\" stroke-width=\"1.6\"/></svg>";

    /**
     * Only this origin's own files and API: no inline script or style (what an injected value
     * could use), no plug-ins, no framing, forms post only here.
     */
    static final String POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"
            + " img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

    private static void html(Context ctx, int status, String page) {
        secure(ctx).status(status).contentType("text/html; charset=utf-8").header("Cache-Control", "no-store")
                .result(page);
    }

    private static void asset(Context ctx, String type, String body) {
        secure(ctx).status(200).contentType(type).header("Cache-Control", "no-cache").result(body);
    }

    private static Context secure(Context ctx) {
        return ctx.header("Content-Security-Policy", POLICY).header("X-Content-Type-Options", "nosniff")
                .header("Referrer-Policy", "no-referrer");
    }

    private static String resource(String name) {
        try (InputStream in = Console.class.getResourceAsStream("console/" + name)) {
            if (in == null) {
                throw new IllegalStateException("console page " + name + " missing from the build");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
