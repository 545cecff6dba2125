package org.sagas.app;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.sagas.orchestrator.config.ConfigException;
import org.sagas.orchestrator.config.Setting;
import org.sagas.orchestrator.config.SettingsTable;
import org.sagas.orchestrator.http.ApiKeys;
import org.sagas.orchestrator.http.ClientAccess;
import org.sagas.orchestrator.http.ClientQuotas;
import org.sagas.orchestrator.http.EdgeLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The public API's protection settings, declared in {@link #TABLE}: API keys and
 * whether an open API may start, per-client quotas, and the limits every listener puts on slow
 * clients. Immutable.
 */
record ApiProtection(Path keysFile, Auth auth, Set<String> priorityCustomers, int clientRate, int clientBurst,
        int clientPendingCap, EdgeLimits limits) {
    private static final Logger log = LoggerFactory.getLogger(ApiProtection.class);

    /** {@code SAGA_API_AUTH}. */
    enum Auth { AUTO, ON, OFF }

    private static final Set<String> API = Set.of("api");
    private static final Set<String> LISTENERS = Setting.ALL_ROLES;

    static final Setting<String> KEYS_FILE = Setting.text("SAGA_API_KEYS_FILE", "", API,
            "API keys, lines 'key customerId[,customerId…] [priority] [rate=N] [burst=N] [pending=N]' (a key's"
                    + " own rate, burst and pending cap); unset = open API (loopback only)");
    static final Setting<String> AUTH = Setting.choice("SAGA_API_AUTH", "auto", List.of("auto", "on", "off"), API,
            "auto: keys if SAGA_API_KEYS_FILE is set, else open on loopback only; on: keys required;"
                    + " off: open API on any address");
    static final Setting<Set<String>> PRIORITY_CUSTOMERS = Setting.list("SAGA_PRIORITY_CUSTOMERS", API,
            "open API only: customer ids whose X-Priority is honoured (with keys: the 'priority' column)");
    static final Setting<Integer> CLIENT_RATE = Setting.integer("SAGA_CLIENT_RATE", 50, 0, 1_000_000, "orders/s",
            API, "order submissions per second per client (API key, or customerId); 0 = no limit; a key's"
                    + " rate=N replaces it");
    static final Setting<Integer> CLIENT_BURST = Setting.integer("SAGA_CLIENT_BURST", 100, 1, 10_000_000, "orders",
            API, "submissions a client may make at once beyond its rate; a key's burst=N replaces it");
    static final Setting<Integer> CLIENT_PENDING_CAP = Setting.integer("SAGA_CLIENT_PENDING_CAP", 1000, 1,
            10_000_000, "orders", API, "most orders pending confirmation for one client (429 beyond); a key's pending=N"
                    + " replaces it");
    static final Setting<Integer> IDLE_TIMEOUT = Setting.integer("SAGA_HTTP_IDLE_TIMEOUT_MS", 30_000, 1_000,
            3_600_000, "ms", LISTENERS, "a connection that sends nothing for this long is closed");
    static final Setting<Integer> MIN_DATA_RATE = Setting.integer("SAGA_HTTP_MIN_DATA_RATE", 1024, 1, 100_000_000,
            "bytes/s", LISTENERS, "the rate a request body must arrive at, at least");
    static final Setting<Integer> SLOW_SENDERS = Setting.integer("SAGA_HTTP_SLOW_SENDERS", 64, 0, 100_000,
            "requests", LISTENERS, "most requests at once whose body is still arriving after 1 s (503 beyond)");

    /** Who may use the public API, how much, how slowly. */
    static final SettingsTable TABLE = SettingsTable.of("Public API: clients, quotas and slow senders",
            List.of(KEYS_FILE, AUTH, PRIORITY_CUSTOMERS, CLIENT_RATE, CLIENT_BURST, CLIENT_PENDING_CAP, IDLE_TIMEOUT,
                    MIN_DATA_RATE, SLOW_SENDERS));

    static ApiProtection from(Settings settings) {
        SettingsTable.Values v;
        try {
            v = TABLE.read(settings.raw()::get);
        } catch (ConfigException e) {
            throw new ConfigurationError(e.getMessage(), e);
        }
        String file = v.get(KEYS_FILE);
        Auth auth = Auth.valueOf(v.get(AUTH).toUpperCase(java.util.Locale.ROOT));
        EdgeLimits defaults = EdgeLimits.defaults();
        EdgeLimits limits = new EdgeLimits(Duration.ofMillis(v.get(IDLE_TIMEOUT)), v.get(MIN_DATA_RATE),
                defaults.slowAfter(), v.get(SLOW_SENDERS), defaults.maxBodyBytes(), defaults.drainBytes());
        return new ApiProtection(file.isEmpty() ? null : Path.of(file), auth, v.get(PRIORITY_CUSTOMERS),
                v.get(CLIENT_RATE), v.get(CLIENT_BURST), v.get(CLIENT_PENDING_CAP), limits);
    }

    /**
     * Who may use an API (or any listener) bound to {@code host}: the keys file's clients, or an
     * open API — allowed on a loopback address with a warning, refused on any other unless
     * {@code SAGA_API_AUTH=off}.
     *
     * @throws ConfigurationError when the keys file is unreadable or wrong, or an open API would face the network
     */
    ClientAccess access(String host) {
        if (keysFile != null) {
            if (auth == Auth.OFF) {
                throw new ConfigurationError("SAGA_API_AUTH=off and SAGA_API_KEYS_FILE are both set: choose one");
            }
            return ClientAccess.withKeys(keys());
        }
        if (auth == Auth.ON) {
            throw new ConfigurationError("SAGA_API_AUTH=on needs SAGA_API_KEYS_FILE");
        }
        if (auth == Auth.AUTO && !loopback(host)) {
            throw new ConfigurationError("refusing to serve an open API on " + host + ", which is not a loopback"
                    + " address: set SAGA_API_KEYS_FILE (lines 'key customerId[,customerId…]'), or SAGA_API_AUTH=off"
                    + " to allow anyone who reaches it to place and read every customer's orders");
        }
        log.warn("the orders API is open (no SAGA_API_KEYS_FILE): anyone who reaches {} can place and read every"
                + " customer's orders{}", host, auth == Auth.OFF ? " (SAGA_API_AUTH=off)" : "");
        return ClientAccess.open(priorityCustomers);
    }

    ClientQuotas quotas() {
        // Even with no default rate: a key may set its own (ApiKeys.Limits), with the default burst.
        return new ClientQuotas(clientRate, clientBurst, System::nanoTime);
    }

    private ApiKeys keys() {
        ApiKeys keys;
        try {
            keys = ApiKeys.parse(Files.readAllLines(keysFile));
        } catch (IOException e) {
            throw new ConfigurationError("cannot read SAGA_API_KEYS_FILE " + keysFile + ": " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationError("SAGA_API_KEYS_FILE " + keysFile + ": " + e.getMessage(), e);
        }
        if (keys.shortKeys() > 0) {
            log.warn("{} of the {} API keys in {} are shorter than {} characters: easy to guess", keys.shortKeys(),
                    keys.size(), keysFile, ApiKeys.RECOMMENDED_LENGTH);
        }
        log.info("orders API: {} API keys from {}", keys.size(), keysFile);
        return keys;
    }

    private static boolean loopback(String host) {
        try {
            for (InetAddress address : InetAddress.getAllByName(host)) {
                if (!address.isLoopbackAddress()) {
                    return false;
                }
            }
            return true;
        } catch (UnknownHostException e) {
            throw new ConfigurationError("SAGA_HTTP_HOST " + host + " does not resolve", e);
        }
    }
}
