package org.sagas.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.sagas.orchestrator.config.ConfigException;
import org.sagas.orchestrator.config.Setting;
import org.sagas.orchestrator.config.SettingsTable;
import org.sagas.orchestrator.admin.AdminTokens;
import org.sagas.orchestrator.admin.FailureLimit;
import org.sagas.orchestrator.admin.SessionPolicy;

/**
 * The operator API's settings (docs/operations-admin.md), declared in {@link #TABLE}. Immutable.
 *
 * @param tokensFile null when unset
 * @param token null when unset
 */
record AdminSettings(String host, int port, Path tokensFile, String token, boolean readOnly,
        Duration participantTimeout, SessionPolicy sessions, FailureLimit failures) {

    private static final Set<String> API = Set.of("api");

    static final Setting<String> HOST = Setting.text("SAGA_ADMIN_HOST", "127.0.0.1", API,
            "address the operator API binds to");
    static final Setting<Integer> PORT = Setting.integer("SAGA_ADMIN_PORT", 8090, 0, 65_535, "port", API,
            "operator API port (--admin-port)");
    static final Setting<String> TOKENS_FILE = Setting.text("SAGA_ADMIN_TOKENS_FILE", "", API,
            "file of admin tokens, lines 'name role token' (role viewer or operator)");
    static final Setting<String> TOKEN = Setting.text("SAGA_ADMIN_TOKEN", "", Set.of("api", "admin CLI"),
            "one operator token; with neither set, ./sagas up writes one to <data dir>/admin-token");
    static final Setting<Boolean> READ_ONLY = Setting.bool("SAGA_ADMIN_READ_ONLY", false, API,
            "refuse every write of the operator API (403)");
    static final Setting<java.time.Duration> PARTICIPANT_TIMEOUT = Setting.millis(
            "SAGA_ADMIN_PARTICIPANT_TIMEOUT_MS", 1_000, 50, 60_000, API,
            "how long an inspection waits for each participant's view of an order before showing it stale");
    static final Setting<Duration> SESSION_IDLE = Setting.millis("SAGA_ADMIN_SESSION_IDLE_MS", 1_800_000, 60_000,
            86_400_000, API, "a console session unused for this long ends (its cookie's Max-Age, renewed on use)");
    static final Setting<Duration> SESSION_MAX_AGE = Setting.millis("SAGA_ADMIN_SESSION_MAX_AGE_MS", 28_800_000,
            60_000, 604_800_000, API, "a console session ends this long after sign-in, however much it is used");
    static final Setting<Integer> SESSIONS = Setting.integer("SAGA_ADMIN_SESSIONS", 1_000, 1, 1_000_000, "sessions",
            API, "most console sessions held at once (in memory); signing in beyond ends the least recently used");
    static final Setting<Boolean> CONSOLE_TLS = Setting.bool("SAGA_ADMIN_CONSOLE_TLS", false, API,
            "the console is reached over TLS (a proxy in front): its cookie is Secure even on plain HTTP here");
    static final Setting<Integer> AUTH_FAILURES = Setting.integer("SAGA_ADMIN_AUTH_FAILURES", 5, 1, 1_000_000,
            "failures", API, "wrong tokens (sign-ins, 401s) one address may present at once before 429");
    static final Setting<Integer> AUTH_FAILURES_PER_MINUTE = Setting.integer("SAGA_ADMIN_AUTH_FAILURES_PER_MINUTE",
            6, 1, 1_000_000, "failures/min", API, "how fast an address's allowance of wrong tokens comes back");
    static final Setting<String> URL = Setting.text("SAGA_ADMIN_URL", "http://127.0.0.1:8090", Set.of("admin CLI"),
            "where ./sagas admin finds the operator API");

    /** The operator API's and its CLI's settings. */
    static final SettingsTable TABLE = SettingsTable.of("Operator API (admin)", List.of(HOST, PORT, TOKENS_FILE,
            TOKEN, READ_ONLY, PARTICIPANT_TIMEOUT, SESSION_IDLE, SESSION_MAX_AGE, SESSIONS, CONSOLE_TLS, AUTH_FAILURES, AUTH_FAILURES_PER_MINUTE, URL));

    static AdminSettings from(Settings settings) {
        SettingsTable.Values v;
        try {
            v = TABLE.read(settings.raw()::get);
        } catch (ConfigException e) {
            throw new ConfigurationError(e.getMessage(), e);
        }
        String file = v.get(TOKENS_FILE);
        String token = v.get(TOKEN);
        SessionPolicy sessions;
        try {
            sessions = new SessionPolicy(v.get(SESSION_IDLE), v.get(SESSION_MAX_AGE), v.get(SESSIONS),
                    v.get(CONSOLE_TLS));
        } catch (IllegalArgumentException e) {
            throw new ConfigurationError("SAGA_ADMIN_SESSION_IDLE_MS must not exceed SAGA_ADMIN_SESSION_MAX_AGE_MS: "
                    + e.getMessage(), e);
        }
        return new AdminSettings(v.get(HOST), v.get(PORT), file.isBlank() ? null : Path.of(file),
                token.isBlank() ? null : token, v.get(READ_ONLY), v.get(PARTICIPANT_TIMEOUT), sessions,
                new FailureLimit(v.get(AUTH_FAILURES), v.get(AUTH_FAILURES_PER_MINUTE)));
    }

    /** The tokens from the file and the environment; empty when neither is set. */
    AdminTokens tokens() {
        List<String> lines = List.of();
        if (tokensFile != null) {
            try {
                lines = Files.readAllLines(tokensFile);
            } catch (IOException e) {
                throw new ConfigurationError("SAGA_ADMIN_TOKENS_FILE: cannot read " + tokensFile + " (" + e + ")");
            }
        }
        try {
            return AdminTokens.parse(lines, "SAGA_ADMIN_TOKENS_FILE " + tokensFile, token);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationError(e.getMessage(), e);
        }
    }
}
