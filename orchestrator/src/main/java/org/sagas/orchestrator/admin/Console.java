package org.sagas.orchestrator.admin;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The operations console ({@code GET /console/}): a login form that takes an admin token and keeps
 * it in an HttpOnly, SameSite=Strict cookie, and one page that drives the same {@code /admin} API
 * (every call carries {@link Guard#CONSOLE_HEADER}, which a cross-site form cannot send). The
 * token's role applies as on the API. Its script and style sheet are files of the jar served
 * here ({@code console.js}, {@code console.css}), so the Content-Security-Policy allows no inline
 * script or style at all; they hold no data and are served without a token. Thread-safe.
 */
final class Console {
    private final AdminTokens tokens;
    private final String loginPage = resource("login.html");
    private final String appPage = resource("console.html");
    private final String script = resource("console.js");
    private final String style = resource("console.css");

    Console(AdminTokens tokens) {
        this.tokens = tokens;
    }

    /** The console's own routes authenticate by themselves (the login form has no token yet). */
    static boolean isPublic(Context ctx) {
        return ctx.path().equals("/console") || ctx.path().startsWith("/console/");
    }

    void register(RoutesConfig routes) {
        routes.get("/console/", ctx -> {
            boolean in = tokens.authenticate(token(ctx)).isPresent();
            html(ctx, 200, in ? appPage : loginPage.replace("{{error}}", ""));
        });
        routes.get("/console/console.js", ctx -> asset(ctx, "text/javascript; charset=utf-8", script));
        routes.get("/console/console.css", ctx -> asset(ctx, "text/css; charset=utf-8", style));
        routes.get("/console/favicon.svg", ctx -> asset(ctx, "image/svg+xml", ICON));
        routes.post("/console/login", ctx -> {
            String token = ctx.formParam("token");
            if (token == null || tokens.authenticate(token.strip()).isEmpty()) {
                html(ctx, 401, loginPage.replace("{{error}}", "<p class=error>That token is not valid.</p>"));
                return;
            }
            String value = Base64.getUrlEncoder().withoutPadding()
                    .encodeToString(token.strip().getBytes(StandardCharsets.UTF_8));
            ctx.header("Set-Cookie", Guard.CONSOLE_COOKIE + "=" + value + "; Path=/; HttpOnly; SameSite=Strict");
            ctx.redirect("/console/", io.javalin.http.HttpStatus.SEE_OTHER);
        });
        routes.post("/console/logout", ctx -> {
            ctx.header("Set-Cookie", Guard.CONSOLE_COOKIE + "=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
            ctx.redirect("/console/", io.javalin.http.HttpStatus.SEE_OTHER);
        });
    }

    /** The token the console's cookie holds, or null. */
    static String token(Context ctx) {
        String cookie = ctx.cookie(Guard.CONSOLE_COOKIE);
        if (cookie == null || cookie.isEmpty()) {
            return null;
        }
        try {
            return new String(Base64.getUrlDecoder().decode(cookie), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
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
