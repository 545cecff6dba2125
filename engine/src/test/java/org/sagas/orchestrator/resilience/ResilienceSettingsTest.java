package org.sagas.orchestrator.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.config.ConfigException;
import org.sagas.orchestrator.config.Setting;
import org.sagas.orchestrator.config.SettingsTable;

class ResilienceSettingsTest {

    private static final List<String> SUFFIXES = List.of("TIMEOUT_MS", "MAX_ATTEMPTS", "BACKOFF_BASE_MS",
            "BACKOFF_CAP_MS", "BREAKER_FAILURE_PERCENT", "BREAKER_MIN_CALLS", "BREAKER_WINDOW_MS", "BREAKER_OPEN_MS",
            "BREAKER_HALF_OPEN_TRIALS", "BULKHEAD_PERMITS", "BULKHEAD_WAIT_MS", "RETRY_BUDGET_RATIO",
            "RETRY_BUDGET_INITIAL", "MIN_USEFUL_BUDGET_MS");

    private static ResilienceConfig inventory(Function<String, String> env) {
        return ResilienceSettings.read("SAGA_INVENTORY", ResilienceConfig.inventoryDefaults(), env);
    }

    private static ResilienceConfig payment(Function<String, String> env) {
        return ResilienceSettings.read("SAGA_PAYMENT", ResilienceConfig.paymentDefaults(), env);
    }

    private static Map<String, String> defaults(SettingsTable table) {
        return table.read(name -> null).raw();
    }

    @Test
    void shouldDeclareTheFourteenVariablesOfEachDependency() {
        SettingsTable inventory = ResilienceSettings.inventoryTable();
        SettingsTable payment = ResilienceSettings.paymentTable();

        assertThat(inventory.settings()).extracting(Setting::name)
                .containsExactlyElementsOf(SUFFIXES.stream().map(s -> "SAGA_INVENTORY_" + s).toList());
        assertThat(payment.settings()).extracting(Setting::name)
                .containsExactlyElementsOf(SUFFIXES.stream().map(s -> "SAGA_PAYMENT_" + s).toList());
        assertThat(inventory.settings()).allSatisfy(s -> assertThat(s.roles()).isEqualTo(Set.of("api", "saga-worker")));
        assertThat(payment.settings())
                .allSatisfy(s -> assertThat(s.roles()).isEqualTo(Set.of("payment-worker", "reconciler")));
    }

    @Test
    void shouldDefaultPaymentVariablesToPaymentValuesNotInventoryOnes() {
        // When each table states its defaults
        Map<String, String> inventory = defaults(ResilienceSettings.inventoryTable());
        Map<String, String> payment = defaults(ResilienceSettings.paymentTable());

        // Then each dependency has its own (docs/design.md, "Resilience parameters")
        assertThat(inventory).containsEntry("SAGA_INVENTORY_TIMEOUT_MS", "300")
                .containsEntry("SAGA_INVENTORY_BACKOFF_BASE_MS", "50")
                .containsEntry("SAGA_INVENTORY_BACKOFF_CAP_MS", "200")
                .containsEntry("SAGA_INVENTORY_BREAKER_MIN_CALLS", "20")
                .containsEntry("SAGA_INVENTORY_BULKHEAD_PERMITS", "24")
                .containsEntry("SAGA_INVENTORY_BULKHEAD_WAIT_MS", "50")
                .containsEntry("SAGA_INVENTORY_MIN_USEFUL_BUDGET_MS", "20");
        assertThat(payment).containsEntry("SAGA_PAYMENT_TIMEOUT_MS", "2000")
                .containsEntry("SAGA_PAYMENT_BACKOFF_BASE_MS", "200")
                .containsEntry("SAGA_PAYMENT_BACKOFF_CAP_MS", "2000")
                .containsEntry("SAGA_PAYMENT_BREAKER_MIN_CALLS", "10")
                .containsEntry("SAGA_PAYMENT_BULKHEAD_PERMITS", "16")
                .containsEntry("SAGA_PAYMENT_BULKHEAD_WAIT_MS", "100")
                .containsEntry("SAGA_PAYMENT_MIN_USEFUL_BUDGET_MS", "50")
                .containsEntry("SAGA_PAYMENT_RETRY_BUDGET_RATIO", "0.1");
        // And reading nothing gives back exactly the payment defaults
        assertThat(payment(name -> null)).isEqualTo(ResilienceConfig.paymentDefaults());
        assertThat(inventory(name -> null)).isEqualTo(ResilienceConfig.inventoryDefaults());
    }

    @Test
    void shouldApplyEnvironmentOverrides() {
        // Given every documented variable set
        Map<String, String> env = Map.ofEntries(
                Map.entry("SAGA_INVENTORY_TIMEOUT_MS", "250"),
                Map.entry("SAGA_INVENTORY_MAX_ATTEMPTS", "2"),
                Map.entry("SAGA_INVENTORY_BREAKER_OPEN_MS", "5000"),
                Map.entry("SAGA_INVENTORY_BULKHEAD_PERMITS", "8"),
                Map.entry("SAGA_INVENTORY_BULKHEAD_WAIT_MS", "0"),
                Map.entry("SAGA_INVENTORY_BACKOFF_BASE_MS", "10"),
                Map.entry("SAGA_INVENTORY_BACKOFF_CAP_MS", "80"),
                Map.entry("SAGA_INVENTORY_BREAKER_MIN_CALLS", "5"),
                Map.entry("SAGA_INVENTORY_BREAKER_FAILURE_PERCENT", "75"),
                Map.entry("SAGA_INVENTORY_BREAKER_WINDOW_MS", "30000"),
                Map.entry("SAGA_INVENTORY_BREAKER_HALF_OPEN_TRIALS", "1"),
                Map.entry("SAGA_INVENTORY_RETRY_BUDGET_RATIO", " 0.2 "),
                Map.entry("SAGA_INVENTORY_RETRY_BUDGET_INITIAL", "4"),
                Map.entry("SAGA_INVENTORY_MIN_USEFUL_BUDGET_MS", "30"));

        // When read over the inventory defaults
        ResilienceConfig config = inventory(env::get);

        // Then each one took effect
        assertThat(config.timeout()).isEqualTo(new TimeoutConfig(Duration.ofMillis(250), Duration.ofMillis(30)));
        assertThat(config.retry()).contains(new RetryConfig(2, Duration.ofMillis(10), Duration.ofMillis(80), 0.2, 4));
        assertThat(config.breaker()).contains(
                new BreakerConfig(75, 5, Duration.ofSeconds(30), Duration.ofSeconds(5), 1));
        assertThat(config.bulkhead()).contains(new BulkheadConfig(8, Duration.ZERO));
        assertThat(config.dependency()).isEqualTo("inventory");
    }

    @Test
    void shouldKeepDefaultsWhenVariablesUnsetOrBlank() {
        // Given one blank variable and none of the others, plus another dependency's variable
        Map<String, String> env = Map.of("SAGA_PAYMENT_TIMEOUT_MS", " ", "SAGA_INVENTORY_TIMEOUT_MS", "1");

        // When read for payment
        ResilienceConfig config = payment(env::get);

        // Then nothing changed
        assertThat(config).isEqualTo(ResilienceConfig.paymentDefaults());
    }

    @Test
    void shouldNameVariableWhenValueMalformed() {
        Map<String, String> env = Map.of("SAGA_INVENTORY_TIMEOUT_MS", "300ms");

        assertThatThrownBy(() -> inventory(env::get))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("SAGA_INVENTORY_TIMEOUT_MS")
                .hasMessageContaining("300ms");
    }

    @Test
    void shouldNameVariableAndRangeWhenValueOutOfRange() {
        Map<String, String> percent = Map.of("SAGA_PAYMENT_BREAKER_FAILURE_PERCENT", "150");
        Map<String, String> ratio = Map.of("SAGA_PAYMENT_RETRY_BUDGET_RATIO", "abc");
        Map<String, String> permits = Map.of("SAGA_PAYMENT_BULKHEAD_PERMITS", "0");
        Map<String, String> window = Map.of("SAGA_INVENTORY_BREAKER_WINDOW_MS", "5");

        assertThatThrownBy(() -> payment(percent::get))
                .isInstanceOf(ConfigException.class)
                .hasMessage("SAGA_PAYMENT_BREAKER_FAILURE_PERCENT must be integer 1 to 100 (%), was '150'");
        assertThatThrownBy(() -> payment(ratio::get))
                .isInstanceOf(ConfigException.class)
                .hasMessage("SAGA_PAYMENT_RETRY_BUDGET_RATIO must be decimal 0 to 1, was 'abc'");
        assertThatThrownBy(() -> payment(permits::get))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("SAGA_PAYMENT_BULKHEAD_PERMITS must be integer 1 to 10000");
        assertThatThrownBy(() -> inventory(window::get))
                .isInstanceOf(ConfigException.class)
                .hasMessage("SAGA_INVENTORY_BREAKER_WINDOW_MS must be duration 10 to 3600000 (ms), was '5'");
    }

    @Test
    void shouldNamePrefixWhenOverridesContradictEachOther() {
        // Given a backoff cap below the default base, and a minimum useful budget above the timeout
        Map<String, String> backoff = Map.of("SAGA_INVENTORY_BACKOFF_CAP_MS", "10");
        Map<String, String> budget = Map.of("SAGA_PAYMENT_MIN_USEFUL_BUDGET_MS", "2500");

        assertThatThrownBy(() -> inventory(backoff::get))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("SAGA_INVENTORY_")
                .hasMessageContaining("backoffCap");
        assertThatThrownBy(() -> payment(budget::get))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("SAGA_PAYMENT_")
                .hasMessageContaining("minimumUsefulBudget must not exceed attemptTimeout (2000 ms)");
    }

    @Test
    void shouldDeclareNoVariablesForAbsentLayers() {
        // Given a dependency with only a timeout and a bulkhead
        ResilienceConfig defaults = ResilienceConfig.paymentDefaults().withoutRetries().withoutBreaker();

        // When its table is declared and read with a bulkhead override
        SettingsTable table = ResilienceSettings.table("SAGA_LEDGER", defaults, Set.of("saga-worker"));
        ResilienceConfig config = ResilienceSettings.from("SAGA_LEDGER",
                table.read(Map.of("SAGA_LEDGER_BULKHEAD_PERMITS", "4")::get), defaults);

        // Then only the present layers have variables, and absent layers stay off
        assertThat(table.settings()).extracting(Setting::name).containsExactly("SAGA_LEDGER_TIMEOUT_MS",
                "SAGA_LEDGER_BULKHEAD_PERMITS", "SAGA_LEDGER_BULKHEAD_WAIT_MS", "SAGA_LEDGER_MIN_USEFUL_BUDGET_MS");
        assertThat(config.retry()).isEmpty();
        assertThat(config.breaker()).isEmpty();
        assertThat(config.bulkhead()).contains(new BulkheadConfig(4, Duration.ofMillis(100)));
    }

    @Test
    void shouldRefuseValuesReadFromAnotherTable() {
        SettingsTable.Values paymentValues = ResilienceSettings.paymentTable().read(name -> null);

        assertThatThrownBy(() -> ResilienceSettings.from("SAGA_INVENTORY", paymentValues,
                ResilienceConfig.inventoryDefaults()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SAGA_INVENTORY_TIMEOUT_MS");
    }

    @Test
    void shouldDocumentEachVariableWithItsDependencysDefaultForHelpAndReference() {
        SettingsTable payment = ResilienceSettings.paymentTable();

        assertThat(payment.helpLines()).anySatisfy(line -> assertThat(line)
                .contains("SAGA_PAYMENT_TIMEOUT_MS").contains("payment").contains("(default 2000 ms)"));
        assertThat(payment.markdown())
                .contains("| `SAGA_PAYMENT_BULKHEAD_PERMITS` | integer | `16` | 1 to 10000 | calls | payment-worker, reconciler |");
    }
}
