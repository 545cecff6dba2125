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
 * token's role applies as on the API. Thread-safe.
 */
final class Console {
    private final AdminTokens tokens;
    private final String loginPage = resource("login.html");
    private final String appPage = resource("console.html");

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

    private static void html(Context ctx, int status, String page) {
        ctx.status(status).contentType("text/html; charset=utf-8").header("Cache-Control", "no-store")
                .header("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline' 'self';"
                        + " style-src 'unsafe-inline'; frame-ancestors 'none'")
                .result(page);
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
