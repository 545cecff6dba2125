package org.sagas.orchestrator;

import static org.sagas.orchestrator.config.Setting.bool;
import static org.sagas.orchestrator.config.Setting.decimal;
import static org.sagas.orchestrator.config.Setting.integer;
import static org.sagas.orchestrator.config.Setting.millis;
import static org.sagas.orchestrator.config.Setting.subset;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.sagas.orchestrator.config.Setting;
import org.sagas.orchestrator.config.SettingsTable;

/**
 * The orchestrator's settings, each declared once: the saga engine's timings, degraded mode, the
 * HTTP edge's admission. The resilience stacks have their own tables (one per dependency).
 */
public final class OrchestratorSettings {
    private OrchestratorSettings() {}

    private static final Set<String> API = Set.of("api");
    private static final Set<String> WORKER = Set.of("saga-worker");
    private static final Set<String> ENGINE = Set.of("api", "saga-worker", "reconciler");

    public static final Setting<Duration> RELAY_IDLE_POLL = millis("SAGA_RELAY_IDLE_POLL_MS", 1_000, 20, 60_000,
            Set.of("relay"), "longest pause between two reads of an idle outbox relay while the writers of its"
                    + " process wake it (20 ms while rows come without a wake-up: writers elsewhere; ADR 0024)");
    public static final Setting<Duration> IDLE_BACKOFF = millis("SAGA_IDLE_BACKOFF_MS", 5_000, 0, 600_000,
            Set.of("api", "saga-worker", "reconciler"), "longest delay the jobs that look for work (step timeouts,"
                    + " expiry, parked resumes, gauges, ledger pulls) reach while no saga moves in the process; a"
                    + " move brings them back to their period; work due by time alone is found up to this late"
                    + " then (0: off)");
    public static final Setting<Duration> PAYMENT_STEP_TIMEOUT = millis("SAGA_PAYMENT_STEP_TIMEOUT_MS", 60_000, 100,
            86_400_000, ENGINE, "no payment reply within this → PAYMENT_UNKNOWN");
    public static final Setting<Duration> STEP_LEASE = millis("SAGA_STEP_LEASE_MS", 30_000, 100, Integer.MAX_VALUE,
            ENGINE, "a step whose runner died is run again after this");
    public static final Setting<Duration> PARK_RETRY = millis("SAGA_PARK_RETRY_MS", 5_000, 10, Integer.MAX_VALUE,
            ENGINE, "a parked saga is tried again after this (sooner when the breaker closes)");
    public static final Setting<Duration> PENDING_TTL = millis("SAGA_PENDING_TTL_MS", 900_000, 1_000,
            Integer.MAX_VALUE, ENGINE, "pending longer than this → CANCELLED (expired)");
    public static final Setting<Double> RESUME_MAX_RATE = decimal("SAGA_RESUME_MAX_RATE", 50, 1, 100_000,
            "sagas/s", WORKER, "most parked sagas resumed per second (slow start up to it)");
    public static final Setting<Boolean> DEGRADED_MODE = bool("SAGA_DEGRADED_MODE", true, API,
            "park orders as PENDING_CONFIRMATION when inventory is unavailable");
    public static final Setting<Set<String>> INVENTORY_LAYERS = subset("SAGA_INVENTORY_LAYERS",
            "breaker,bulkhead,retries", List.of("breaker", "bulkhead", "retries"), ENGINE,
            "resilience layers around inventory (the timeout always applies)");
    public static final Setting<Boolean> SHEDDING = bool("SAGA_SHEDDING", true, API,
            "load shedding by X-Priority, passed deadlines, pending cap");
    public static final Setting<Boolean> ADMISSION_ADAPTIVE = bool("SAGA_ADMISSION_ADAPTIVE", true, API,
            "find the in-flight limit of order submissions at run time from the product's own time per order"
                    + " (the priority limits become ceilings; ADR 0021)");
    public static final Setting<Duration> ADMISSION_QUEUE = millis("SAGA_ADMISSION_QUEUE_MS", 150, 0, 60_000, API,
            "longest a submission waits for an in-flight slot before 503 (less when its deadline is nearer)");
    public static final Setting<Integer> PENDING_CAP = integer("SAGA_PENDING_CAP", 10_000, 0, 10_000_000, "orders",
            API, "most orders pending confirmation before new ones get 503");
    public static final Setting<Integer> REQUEST_BUDGET = integer("SAGA_REQUEST_BUDGET_MS", 500, 1, 600_000, "ms",
            API, "POST /orders budget when the client sends no X-Deadline");
    public static final Setting<Integer> MAX_BUDGET = integer("SAGA_MAX_REQUEST_BUDGET_MS", 10_000, 1, 600_000, "ms",
            API, "longest POST /orders budget whatever X-Deadline asks: a deadline further out is brought in");
    public static final Setting<Integer> ANSWER_RESERVE = integer("SAGA_ANSWER_RESERVE_MS", 100, 0, 600_000, "ms",
            API, "end of a POST /orders budget kept for storing the answer: inventory gets the rest (ADR 0004)");
    public static final Setting<Integer> FOREGROUND_BUSY_AT = integer("SAGA_FOREGROUND_BUSY_AT", 8, 1, 100_000,
            "requests", API,
            "order submissions in flight from which payment and reply consumers in the same process wait");
    public static final Setting<Duration> FOREGROUND_MAX_WAIT = millis("SAGA_FOREGROUND_MAX_WAIT_MS", 1_000, 0,
            60_000, API, "longest a consumed record is held back so, counted from when it was written to Kafka"
                    + " (0: never wait; ADR 0005)");
    public static final Setting<Integer> FOREGROUND_CPU_PERCENT = integer("SAGA_FOREGROUND_CPU_PERCENT", 90, 0, 100,
            "%", API, "... and only while the machine's CPU use is at least this");

    public static final Setting<Duration> PAYMENT_CALL_BUDGET = millis("SAGA_PAYMENT_CALL_BUDGET_MS", 15_000, 100,
            600_000, Set.of("payment-worker"), "the most one charge may take, its retries included");
    public static final Setting<Duration> RESUME_TICK = millis("SAGA_RESUME_TICK_MS", 250, 10, 60_000, WORKER,
            "how often due and parked sagas are looked for (besides the breaker closing)");
    public static final Setting<Duration> RESUME_STEP_BUDGET = millis("SAGA_RESUME_STEP_BUDGET_MS", 2_000, 50,
            600_000, WORKER, "the deadline a resumed step runs under");
    public static final Setting<Duration> RECONCILE_PERIOD = millis("SAGA_RECONCILE_PERIOD_MS", 5_000, 50,
            3_600_000, Set.of("reconciler"), "how often PAYMENT_UNKNOWN orders are settled from the provider");
    public static final Setting<Duration> HOUSEKEEPING_PERIOD = millis("SAGA_HOUSEKEEPING_PERIOD_MS", 1_000, 10,
            3_600_000, WORKER, "how often step timeouts and expiry of parked sagas are checked");
    public static final Setting<Duration> COMPENSATION_STALL = millis("SAGA_COMPENSATION_STALL_MS", 900_000, 1_000,
            31_536_000_000L, WORKER, "a compensation parked on its participant longer than this becomes an incident"
                    + " (COMPENSATION_STALLED), and is still retried");
    public static final Setting<Duration> STALLED_COMPENSATIONS_PERIOD = millis(
            "SAGA_STALLED_COMPENSATIONS_PERIOD_MS", 30_000, 10, 3_600_000, WORKER,
            "how often compensations parked longer than SAGA_COMPENSATION_STALL_MS are looked for");
    public static final Setting<Duration> RETENTION_PERIOD = millis("SAGA_RETENTION_PERIOD_MS", 60_000, 10,
            86_400_000, WORKER, "how often every growing table is emptied of what outlived its retention (in"
                    + " batches; a backlog takes several runs)");
    public static final Setting<Duration> SAGA_RETENTION = millis("SAGA_SAGA_RETENTION_MS", 7_776_000_000L,
            86_400_000, 315_360_000_000L, WORKER, "ended sagas (their orders with them) and their history are deleted"
                    + " this long after they ended");
    public static final Setting<Duration> AUDIT_RETENTION = millis("SAGA_AUDIT_RETENTION_MS", 31_536_000_000L,
            86_400_000, 315_360_000_000L, WORKER, "how long the operator API's audit rows are kept");
    public static final Setting<Duration> FINDING_RETENTION = millis("SAGA_FINDING_RETENTION_MS", 7_776_000_000L,
            86_400_000, 315_360_000_000L, WORKER, "how long resolved reconciliation findings are kept");
    public static final Setting<Duration> BATCH_RETENTION = millis("SAGA_BATCH_RETENTION_MS", 7_776_000_000L,
            86_400_000, 315_360_000_000L, WORKER, "how long finished operator batches are kept");
    public static final Setting<Duration> IDEMPOTENCY_RETENTION = millis("SAGA_IDEMPOTENCY_RETENTION_MS",
            86_400_000, 60_000, 31_536_000_000L, WORKER, "how long an Idempotency-Key answers the same");
    public static final Setting<Duration> GAUGES_PERIOD = millis("SAGA_GAUGES_PERIOD_MS", 500, 10, 60_000,
            Setting.ALL_ROLES, "how often order counts and the oldest pending age are read for metrics");
    public static final Setting<Duration> INCIDENT_GAUGES_PERIOD = millis("SAGA_INCIDENT_GAUGES_PERIOD_MS", 1_000, 10,
            600_000, Setting.ALL_ROLES, "how often incidents are counted by cause for saga_incidents{cause}");
    public static final Setting<Duration> STOP_WAIT = millis("SAGA_STOP_WAIT_MS", 5_000, 0, 600_000,
            Setting.ALL_ROLES, "on stop, the longest each background component waits for its work");

    public static final Setting<Integer> STEP_MAX_RETRIES = integer("SAGA_STEP_MAX_RETRIES", 3, 0, 100, "retries",
            ENGINE, "a step that throws is tried again this many times (back-off from SAGA_PARK_RETRY_MS,"
                    + " doubling up to the lease), then the saga is a STEP_FAILED incident");
    public static final Setting<Duration> CONSUMER_RETRY = millis("SAGA_CONSUMER_RETRY_MS", 60_000, 100,
            Integer.MAX_VALUE, Set.of("saga-worker", "payment-worker"), "a consumed record whose handling keeps"
                    + " failing is retried this long (others go on), then dead-lettered and made an incident");
    public static final Setting<Duration> PAYMENT_RESEND_AFTER = millis("SAGA_PAYMENT_RESEND_AFTER_MS", 30_000, 100,
            Integer.MAX_VALUE, Set.of("reconciler"),
            "quiet time after which a charge the provider never saw is sent again under the same key");
    public static final Setting<Integer> PAYMENT_MAX_RESENDS = integer("SAGA_PAYMENT_MAX_RESENDS", 3, 0, 100,
            "resends", Set.of("reconciler"), "resends of a lost charge before the order is a PAYMENT_UNRESOLVED incident");
    public static final Setting<Duration> INBOX_RETENTION = millis("SAGA_INBOX_RETENTION_MS", 604_800_000, 60_000,
            315_360_000_000L, WORKER, "how long consumed message ids are kept; must exceed the topics' retention"
                    + " (3 days), so a redelivery is always recognised");

    public static final Setting<Integer> ORDER_SAGA_VERSION = integer("SAGA_ORDER_SAGA_VERSION", 1, 1, 1_000,
            "version", ENGINE, "the orders saga's definition version new orders start on: 1 (reserve, charge) or 2 (reserve,"
                    + " fraud screen, charge); an order keeps the version it started on to its end (docs/design.md,"
                    + " \"A second version of a saga\")");
    public static final Setting<Integer> ORDER_SAGA_HIGHEST = integer("SAGA_ORDER_SAGA_HIGHEST_VERSION", 2, 1, 1_000,
            "version", ENGINE, "the highest orders saga version this process runs (default: the highest it has, 2); set"
                    + " lower, the process runs as a build without the later versions: it takes no instance of them,"
                    + " to roll a new version out to some processes first (docs/design.md, \"A second version of a saga\")");
    public static final Setting<Duration> VERSIONS_HEARTBEAT = millis("SAGA_VERSIONS_HEARTBEAT_MS", 10_000, 100,
            3_600_000, ENGINE, "how often a process records the saga definition versions it has; silent for 3 of"
                    + " these, they no longer let another process start (docs/decisions/0025)");

    /** The table, in the order the reference lists it. */
    public static final SettingsTable TABLE = SettingsTable.of("Saga engine, degraded mode and admission", List.of(
            PAYMENT_STEP_TIMEOUT, STEP_LEASE, PARK_RETRY, PENDING_TTL, RESUME_MAX_RATE, DEGRADED_MODE,
            INVENTORY_LAYERS, SHEDDING, ADMISSION_ADAPTIVE, ADMISSION_QUEUE, PENDING_CAP, REQUEST_BUDGET, MAX_BUDGET, ANSWER_RESERVE, FOREGROUND_BUSY_AT,
            FOREGROUND_MAX_WAIT, FOREGROUND_CPU_PERCENT, PAYMENT_CALL_BUDGET, RESUME_TICK, RESUME_STEP_BUDGET,
            RECONCILE_PERIOD, HOUSEKEEPING_PERIOD, COMPENSATION_STALL, STALLED_COMPENSATIONS_PERIOD, RETENTION_PERIOD,
            SAGA_RETENTION, AUDIT_RETENTION, FINDING_RETENTION, BATCH_RETENTION, IDEMPOTENCY_RETENTION, GAUGES_PERIOD,
            INCIDENT_GAUGES_PERIOD, STOP_WAIT, STEP_MAX_RETRIES,
            CONSUMER_RETRY, PAYMENT_RESEND_AFTER, PAYMENT_MAX_RESENDS, INBOX_RETENTION, RELAY_IDLE_POLL, IDLE_BACKOFF,
            ORDER_SAGA_VERSION, ORDER_SAGA_HIGHEST, VERSIONS_HEARTBEAT));
}
