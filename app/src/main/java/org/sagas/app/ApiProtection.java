package org.sagas.app;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.sagas.orchestrator.http.ApiKeys;
import org.sagas.orchestrator.http.ClientAccess;
import org.sagas.orchestrator.http.ClientQuotas;
import org.sagas.orchestrator.http.EdgeLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The public API's protection settings (issue 16), read from {@link Settings#raw()}: API keys and
 * whether an open API may start, per-client quotas, and the limits every listener puts on slow
 * clients. Immutable.
 */
record ApiProtection(Path keysFile, Auth auth, Set<String> priorityCustomers, int clientRate, int clientBurst,
        int clientPendingCap, EdgeLimits limits) {
    private static final Logger log = LoggerFactory.getLogger(ApiProtection.class);

    /** {@code SAGA_API_AUTH}. */
    enum Auth { AUTO, ON, OFF }

    static ApiProtection from(Settings settings) {
        Map<String, String> raw = settings.raw();
        String file = raw.get("SAGA_API_KEYS_FILE");
        Auth auth;
        try {
            auth = Auth.valueOf(raw.get("SAGA_API_AUTH").toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConfigurationError("SAGA_API_AUTH must be auto, on or off (got '" + raw.get("SAGA_API_AUTH")
                    + "')");
        }
        Set<String> priority = Arrays.stream(raw.get("SAGA_PRIORITY_CUSTOMERS").split(",")).map(String::trim)
                .filter(c -> !c.isEmpty()).collect(Collectors.toUnmodifiableSet());
        EdgeLimits defaults = EdgeLimits.defaults();
        EdgeLimits limits = new EdgeLimits(
                Duration.ofMillis(Settings.integer(raw, "SAGA_HTTP_IDLE_TIMEOUT_MS", 1_000, 3_600_000)),
                Settings.integer(raw, "SAGA_HTTP_MIN_DATA_RATE", 1, 100_000_000), defaults.slowAfter(),
                Settings.integer(raw, "SAGA_HTTP_SLOW_SENDERS", 0, 100_000), defaults.maxBodyBytes(),
                defaults.drainBytes());
        return new ApiProtection(file.isEmpty() ? null : Path.of(file), auth, priority,
                Settings.integer(raw, "SAGA_CLIENT_RATE", 0, 1_000_000),
                Settings.integer(raw, "SAGA_CLIENT_BURST", 1, 10_000_000),
                Settings.integer(raw, "SAGA_CLIENT_PENDING_CAP", 1, 10_000_000), limits);
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
        return clientRate == 0 ? ClientQuotas.unlimited() : new ClientQuotas(clientRate, clientBurst, System::nanoTime);
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
