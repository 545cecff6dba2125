package org.sagas.orchestrator.resilience;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.sagas.orchestrator.config.ConfigException;
import org.sagas.orchestrator.config.Setting;
import org.sagas.orchestrator.config.SettingsTable;

/**
 * The environment variables of one dependency's resilience stack, {@code <prefix>_TIMEOUT_MS} and
 * the like, declared once per dependency with that dependency's own defaults. {@link #table}
 * gives the {@link SettingsTable} (parsing, {@code --help}, the configuration reference) and
 * {@link #from} turns its values into a {@link ResilienceConfig}.
 *
 * <p>Variables exist only for the layers the defaults have: a dependency built without a breaker
 * has no {@code _BREAKER_*} variables. The accepted ranges are the policy configs' own, so the
 * table and the builders cannot disagree. Stateless and thread-safe.
 */
public final class ResilienceSettings {

    /** Prefix of the inventory service's variables. */
    public static final String INVENTORY = "SAGA_INVENTORY";
    /** Prefix of the payment provider's variables. */
    public static final String PAYMENT = "SAGA_PAYMENT";
    /** Prefix of the fraud screening service's variables. */
    public static final String FRAUD = "SAGA_FRAUD";
    /** The roles that call the fraud service: the API screens a new order of version 2, the saga worker a resumed one. */
    public static final Set<String> FRAUD_ROLES = Set.of("api", "saga-worker");
    /** The roles that call inventory: the API reserves stock, the saga worker reserves and releases it. */
    public static final Set<String> INVENTORY_ROLES = Set.of("api", "saga-worker");
    /** The roles that call the payment provider: charges, and the reconciler's status look-ups. */
    public static final Set<String> PAYMENT_ROLES = Set.of("payment-worker", "reconciler");

    private ResilienceSettings() {
    }

    /** The inventory service's table: {@code SAGA_INVENTORY_*} over {@link ResilienceConfig#inventoryDefaults()}. */
    public static SettingsTable inventoryTable() {
        return table(INVENTORY, ResilienceConfig.inventoryDefaults(), INVENTORY_ROLES);
    }

    /** The payment provider's table: {@code SAGA_PAYMENT_*} over {@link ResilienceConfig#paymentDefaults()}. */
    public static SettingsTable paymentTable() {
        return table(PAYMENT, ResilienceConfig.paymentDefaults(), PAYMENT_ROLES);
    }

    /** The fraud service's table: {@code SAGA_FRAUD_*} over {@link ResilienceConfig#fraudDefaults()}. */
    public static SettingsTable fraudTable() {
        return table(FRAUD, ResilienceConfig.fraudDefaults(), FRAUD_ROLES);
    }

    /**
     * Declares the variables {@code <prefix>_*} of one dependency, each defaulting to its value
     * in {@code defaults}, as read by {@code roles}.
     *
     * @throws IllegalArgumentException if {@code prefix} is not an upper-case variable name
     */
    public static SettingsTable table(String prefix, ResilienceConfig defaults, Set<String> roles) {
        Declared declared = new Declared(prefix, defaults, roles);
        return SettingsTable.of("Resilience around " + defaults.dependency() + " (" + prefix + "_*)",
                declared.all());
    }

    /**
     * Builds the config of one dependency from {@code values}, read from {@link #table} with the
     * same {@code prefix} and {@code defaults}: the layers of {@code defaults}, with the values read.
     *
     * @throws ConfigException naming the prefix if the values, each valid alone, contradict each
     *     other (a backoff cap below its base, a minimum useful budget above the attempt timeout)
     * @throws IllegalArgumentException if {@code values} do not come from such a table
     */
    public static ResilienceConfig from(String prefix, SettingsTable.Values values, ResilienceConfig defaults) {
        Declared d = new Declared(prefix, defaults, Set.of());
        for (Setting<?> s : d.all()) {
            if (!values.raw().containsKey(s.name())) {
                throw new IllegalArgumentException("values lack " + s.name() + ": read them from table(\""
                        + prefix + "\", ...)");
            }
        }
        try {
            ResilienceConfig.Builder config = ResilienceConfig.builder(defaults.dependency())
                    .timeout(TimeoutConfig.builder()
                            .attemptTimeout(values.get(d.timeout))
                            .minimumUsefulBudget(values.get(d.minimumUsefulBudget))
                            .build());
            if (defaults.retry().isPresent()) {
                config.retry(RetryConfig.builder()
                        .maxAttempts(values.get(d.maxAttempts))
                        .backoffBase(values.get(d.backoffBase))
                        .backoffCap(values.get(d.backoffCap))
                        .budgetRatio(values.get(d.budgetRatio))
                        .budgetInitial(values.get(d.budgetInitial))
                        .build());
            }
            if (defaults.breaker().isPresent()) {
                config.breaker(BreakerConfig.builder()
                        .failureRateThresholdPercent(values.get(d.failurePercent))
                        .minimumCalls(values.get(d.minimumCalls))
                        .failureWindow(values.get(d.window))
                        .openDuration(values.get(d.open))
                        .halfOpenTrials(values.get(d.halfOpenTrials))
                        .build());
            }
            if (defaults.bulkhead().isPresent()) {
                config.bulkhead(BulkheadConfig.builder()
                        .permits(values.get(d.permits))
                        .maxWait(values.get(d.maxWait))
                        .build());
            }
            return config.build();
        } catch (IllegalArgumentException e) {
            // Each value passed its own range; what is left is a disagreement between two of them.
            throw new ConfigException(prefix + "_* settings contradict each other: " + e.getMessage(), e);
        }
    }

    /**
     * Reads one dependency's variables through {@code env} (null or blank: the default) into its
     * config: {@link #table} then {@link #from}.
     *
     * @throws ConfigException naming the variable and its range for a malformed or out-of-range
     *     value, or the prefix for values that contradict each other
     */
    public static ResilienceConfig read(String prefix, ResilienceConfig defaults, Function<String, String> env) {
        return from(prefix, table(prefix, defaults, Set.of()).read(env), defaults);
    }

    /** The settings of one prefix; those of an absent layer are null. */
    private static final class Declared {
        private final String prefix;
        private final Set<String> roles;
        private final String dependency;
        final Setting<Duration> timeout;
        final Setting<Duration> minimumUsefulBudget;
        Setting<Integer> maxAttempts;
        Setting<Duration> backoffBase;
        Setting<Duration> backoffCap;
        Setting<Double> budgetRatio;
        Setting<Integer> budgetInitial;
        Setting<Integer> failurePercent;
        Setting<Integer> minimumCalls;
        Setting<Duration> window;
        Setting<Duration> open;
        Setting<Integer> halfOpenTrials;
        Setting<Integer> permits;
        Setting<Duration> maxWait;

        Declared(String prefix, ResilienceConfig defaults, Set<String> roles) {
            this.prefix = Objects.requireNonNull(prefix, "prefix");
            this.roles = roles;
            this.dependency = defaults.dependency();
            TimeoutConfig t = defaults.timeout();
            timeout = millis("TIMEOUT_MS", t.attemptTimeout(), Duration.ofMillis(1), TimeoutConfig.MAX,
                    "most one attempt at " + dependency + " may take, never beyond the caller's deadline");
            minimumUsefulBudget = millis("MIN_USEFUL_BUDGET_MS", t.minimumUsefulBudget(), Duration.ofMillis(1),
                    TimeoutConfig.MAX, "with less time than this left before the deadline, don't call "
                            + dependency + " (at most the attempt timeout)");
            defaults.retry().ifPresent(this::declareRetry);
            defaults.breaker().ifPresent(this::declareBreaker);
            defaults.bulkhead().ifPresent(this::declareBulkhead);
        }

        private void declareRetry(RetryConfig r) {
            maxAttempts = integer("MAX_ATTEMPTS", r.maxAttempts(), 1, RetryConfig.MAX_ATTEMPTS, "attempts",
                    "attempts per call, the first included (1: no retry)");
            backoffBase = millis("BACKOFF_BASE_MS", r.backoffBase(), Duration.ZERO, RetryConfig.MAX_BACKOFF,
                    "full-jitter backoff: longest pause before the first retry, doubling for each next one");
            backoffCap = millis("BACKOFF_CAP_MS", r.backoffCap(), Duration.ZERO, RetryConfig.MAX_BACKOFF,
                    "full-jitter backoff: longest pause ever (not below the base)");
            budgetRatio = Setting.decimal(prefix + "_RETRY_BUDGET_RATIO", r.budgetRatio(), 0, 1, "", roles,
                    "retry tokens each call to " + dependency + " earns: retries stay under this share of calls");
            budgetInitial = integer("RETRY_BUDGET_INITIAL", r.budgetInitial(), 0, RetryConfig.MAX_BUDGET, "retries",
                    "retry tokens at start, also the most the budget holds");
        }

        private void declareBreaker(BreakerConfig b) {
            failurePercent = integer("BREAKER_FAILURE_PERCENT", b.failureRateThresholdPercent(), 1, 100, "%",
                    "failure rate in the window at which the circuit breaker around " + dependency + " opens");
            minimumCalls = integer("BREAKER_MIN_CALLS", b.minimumCalls(), 1, BreakerConfig.MAX_MINIMUM_CALLS, "calls",
                    "calls in the window before the failure rate is judged");
            window = millis("BREAKER_WINDOW_MS", b.failureWindow(), BreakerConfig.SHORTEST_WINDOW,
                    BreakerConfig.MAX_DURATION, "sliding window over which the breaker counts calls and failures");
            open = millis("BREAKER_OPEN_MS", b.openDuration(), Duration.ofMillis(1), BreakerConfig.MAX_DURATION,
                    "how long the breaker stays open before letting half-open trials through");
            halfOpenTrials = integer("BREAKER_HALF_OPEN_TRIALS", b.halfOpenTrials(), 1,
                    BreakerConfig.MAX_HALF_OPEN_TRIALS, "calls",
                    "trial calls while half-open: this many successes close the breaker, at most this many at once");
        }

        private void declareBulkhead(BulkheadConfig b) {
            permits = integer("BULKHEAD_PERMITS", b.permits(), 1, BulkheadConfig.MAX_PERMITS, "calls",
                    "most calls in flight to " + dependency + " from one process");
            maxWait = millis("BULKHEAD_WAIT_MS", b.maxWait(), Duration.ZERO, BulkheadConfig.MAX_WAIT,
                    "longest wait for a bulkhead permit (never beyond the caller's deadline)");
        }

        /** In the order of the variables' documentation, absent layers left out. */
        List<Setting<?>> all() {
            List<Setting<?>> list = new ArrayList<>();
            for (Setting<?> s : Arrays.asList(timeout, maxAttempts, backoffBase, backoffCap, failurePercent,
                    minimumCalls, window, open, halfOpenTrials, permits, maxWait, budgetRatio, budgetInitial,
                    minimumUsefulBudget)) {
                if (s != null) {
                    list.add(s);
                }
            }
            return list;
        }

        private Setting<Duration> millis(String suffix, Duration value, Duration min, Duration max, String doc) {
            return Setting.millis(prefix + "_" + suffix, value.toMillis(), min.toMillis(), max.toMillis(), roles, doc);
        }

        private Setting<Integer> integer(String suffix, int value, int min, int max, String unit, String doc) {
            return Setting.integer(prefix + "_" + suffix, value, min, max, unit, roles, doc);
        }
    }
}
