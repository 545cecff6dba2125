package org.sagas.app;

import java.util.List;
import javax.sql.DataSource;
import org.sagas.orchestrator.lifecycle.Component;
import org.sagas.orchestrator.lifecycle.Components;
import org.sagas.sandbox.FraudRules;
import org.sagas.sandbox.FraudSandbox;
import org.sagas.sandbox.InventorySandbox;
import org.sagas.sandbox.PaymentSandbox;
import org.sagas.sandbox.SandboxAccess;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sandbox participants of this process: inventory, payment and fraud, started from the
 * settings. The one class of the launcher that names the sandbox module's classes, so it is
 * loaded only once {@link SandboxModule#require()} has found that module (docs/decisions/0031).
 * Its sandboxes close with the {@link Components} they were started into. Thread-safe: immutable.
 */
final class SandboxParticipants {
    private static final Logger log = LoggerFactory.getLogger(SandboxParticipants.class);

    private final InventorySandbox inventory;
    private final PaymentSandbox payment;
    private final FraudSandbox fraud;

    private SandboxParticipants(InventorySandbox inventory, PaymentSandbox payment, FraudSandbox fraud) {
        this.inventory = inventory;
        this.payment = payment;
        this.fraud = fraud;
    }

    /**
     * Starts the three sandboxes on {@code s}'s host and ports, each a component of {@code into}.
     *
     * @throws ConfigurationError if the sandbox settings are malformed
     */
    static SandboxParticipants start(DataSource dataSource, Settings s, Components into) {
        SandboxSettings settings = SandboxSettings.from(s);
        SandboxAccess access = SandboxAccess.of(settings.controlsOn(), settings.ledgerToken());
        if (!access.ledgersOpen()) {
            log.warn("sandbox ledgers closed: no SAGA_SANDBOX_LEDGER_TOKEN(_FILE), so GET /charges and"
                    + " GET /reservations answer 401 (the reconciler cannot read them)");
        }
        InventorySandbox inventory = InventorySandbox.start(dataSource, s.host(), s.inventoryPort(), access);
        into.start(Component.of("inventory-sandbox", inventory));
        PaymentSandbox payment = PaymentSandbox.start(dataSource, s.host(), s.paymentPort(), access);
        into.start(Component.of("payment-sandbox", payment));
        FraudRules rules = new FraudRules(settings.fraudLimitCents(), settings.flaggedCustomers());
        FraudSandbox fraud = FraudSandbox.start(rules, s.host(), s.fraudPort(), access);
        into.start(Component.of("fraud-sandbox", fraud));
        return new SandboxParticipants(inventory, payment, fraud);
    }

    int inventoryPort() {
        return inventory.port();
    }

    int paymentPort() {
        return payment.port();
    }

    int fraudPort() {
        return fraud.port();
    }

    List<String> inventoryRoutes() {
        return inventory.routes();
    }

    List<String> paymentRoutes() {
        return payment.routes();
    }
}
