package org.sagas.app;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.sagas.orchestrator.config.ConfigException;
import org.sagas.orchestrator.config.Setting;
import org.sagas.orchestrator.config.SettingsTable;

/**
 * The sandbox participants' protection (docs/security.md, "The sandboxes"), declared in
 * {@link #TABLE}: whether their controls exist, and the token of their ledgers, which the sandbox
 * asks for and the reconciler and the operator API send. Immutable.
 *
 * <p>It names no class of the sandbox module: the roles that only send the ledger token (api,
 * reconciler) read it too, in the production image that leaves that module out (docs/decisions/0031).
 *
 * @param ledgerToken empty when none is set
 * @param fraudLimitCents the sandbox fraud service refuses an order whose total is over this
 * @param flaggedCustomers the customers the sandbox fraud service refuses
 */
record SandboxSettings(Controls controls, String ledgerToken, int fraudLimitCents, Set<String> flaggedCustomers) {
    /** {@code SAGA_SANDBOX_CONTROLS}. */
    enum Controls { AUTO, ON, OFF }

    /** Where {@code ./sagas up} keeps the ledger token it made. */
    static final String TOKEN_FILE = "sandbox-ledger-token";

    private static final Set<String> LEDGER_ROLES = Set.of("sandbox", "reconciler", "api");

    static final Setting<String> CONTROLS = Setting.choice("SAGA_SANDBOX_CONTROLS", "auto",
            List.of("auto", "on", "off"), Set.of("sandbox"),
            "the sandboxes' controls: PUT /stock/{sku}, PUT and GET /_faults, GET /_traceparents/{key};"
                    + " auto: on in ./sagas up, off for the sandbox role; off: they answer 404");
    static final Setting<String> LEDGER_TOKEN = Setting.text("SAGA_SANDBOX_LEDGER_TOKEN", "", LEDGER_ROLES,
            "bearer token of the sandboxes' ledgers (GET /charges, GET /reservations), sent by the reconciler and"
                    + " the operator API; unset: ./sagas up writes one to <data dir>/" + TOKEN_FILE
                    + ", the sandbox role answers its ledgers 401");
    static final Setting<String> LEDGER_TOKEN_FILE = Setting.text("SAGA_SANDBOX_LEDGER_TOKEN_FILE", "", LEDGER_ROLES,
            "file holding the ledger token, e.g. a Docker secret; its line end is dropped; not with"
                    + " SAGA_SANDBOX_LEDGER_TOKEN");

    static final Setting<Integer> FRAUD_LIMIT = Setting.integer("SAGA_SANDBOX_FRAUD_LIMIT_CENTS", 500_000, 1,
            Integer.MAX_VALUE, "cents", Set.of("sandbox"),
            "the sandbox fraud service refuses an order whose total is over this (rule amount_over_limit)");
    static final Setting<String> FRAUD_FLAGGED = Setting.text("SAGA_SANDBOX_FRAUD_FLAGGED_CUSTOMERS", "c-fraud",
            Set.of("sandbox"), "comma-separated customer ids the sandbox fraud service refuses (rule flagged_customer)");

    static final SettingsTable TABLE = SettingsTable.of("Sandbox participants", List.of(CONTROLS, LEDGER_TOKEN,
            LEDGER_TOKEN_FILE, FRAUD_LIMIT, FRAUD_FLAGGED));

    /**
     * The sandbox settings of {@code settings}, the token read from its file when one is named.
     *
     * @throws ConfigurationError if a value is malformed, or the token file cannot be read
     */
    static SandboxSettings from(Settings settings) {
        Map<String, String> raw = new HashMap<>(settings.raw());
        SettingsTable.Values v;
        try {
            v = TABLE.read(raw::get);
        } catch (ConfigException e) {
            throw new ConfigurationError(e.getMessage(), e);
        }
        Set<String> flagged = java.util.Arrays.stream(v.get(FRAUD_FLAGGED).split(",")).map(String::strip)
                .filter(c -> !c.isEmpty()).collect(java.util.stream.Collectors.toUnmodifiableSet());
        return new SandboxSettings(Controls.valueOf(v.get(CONTROLS).toUpperCase(Locale.ROOT)),
                SecretFile.resolve(raw, LEDGER_TOKEN.name()), v.get(FRAUD_LIMIT), flagged);
    }

    /**
     * {@code settings} as {@code ./sagas up} runs them: the controls on unless set otherwise (the
     * README's tour stocks SKUs and injects faults), and a ledger token made into {@code tokenDir}
     * when none is set, so the roles in this process that read the ledgers send it.
     */
    static Settings forUp(Settings settings, Path tokenDir) {
        SandboxSettings given = from(settings);
        Settings result = settings;
        if (given.controls() == Controls.AUTO) {
            result = result.with(CONTROLS.name(), "on");
        }
        if (given.ledgerToken().isEmpty()) {
            result = result.with(LEDGER_TOKEN.name(), GeneratedSecret.ensure(tokenDir.resolve(TOKEN_FILE),
                    LEDGER_TOKEN.name()));
        }
        return result;
    }

    /** Whether the sandbox serves its controls: only when on (auto means off outside ./sagas up). */
    boolean controlsOn() {
        return controls == Controls.ON;
    }
}
