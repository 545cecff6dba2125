package org.sagas.app;

import java.net.URI;
import org.sagas.app.check.Target;

/** Where {@code ./sagas check} finds the product: the settings its roles read (docs/configuration.md). */
final class CheckTargets {
    private CheckTargets() {}

    /**
     * The product {@code settings} describe.
     *
     * @throws ConfigurationError when they name no external PostgreSQL or Kafka, or no ledger token
     */
    static Target of(Settings settings) {
        if (settings.embeddedDatabase()) {
            throw new ConfigurationError("check reads a running product: set SAGA_DB_URL (./sagas up prints it; its"
                    + " password is <data dir>/postgres/password, for SAGA_DB_PASSWORD_FILE)");
        }
        if (settings.embeddedKafka()) {
            throw new ConfigurationError("check reads a running product: set SAGA_KAFKA_BOOTSTRAP (./sagas up prints it)");
        }
        String token = SandboxSettings.from(settings).ledgerToken();
        if (token.isEmpty()) {
            throw new ConfigurationError("check reads the participants' ledgers: set SAGA_SANDBOX_LEDGER_TOKEN or"
                    + " SAGA_SANDBOX_LEDGER_TOKEN_FILE (./sagas up prints the file)");
        }
        try {
            return new Target(settings.dbUrl(), settings.dbUser(), settings.dbPassword(), settings.kafka(),
                    URI.create(settings.inventoryUrl()), URI.create(settings.paymentUrl()), token);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationError("SAGA_INVENTORY_URL or SAGA_PAYMENT_URL is not a URL: " + e.getMessage(), e);
        }
    }
}
