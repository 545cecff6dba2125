package org.sagas.app.check;

import java.net.URI;
import java.util.Objects;
import org.sagas.orchestrator.messaging.KafkaConnection;

/**
 * The running product to check: its PostgreSQL, its Kafka and its participants' ledgers (which
 * answer only with the ledger token, docs/security.md). {@link #toString()} shows no secret.
 */
public record Target(String jdbcUrl, String dbUser, String dbPassword, KafkaConnection kafka, URI inventory,
        URI payments, String ledgerToken) {
    public Target {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(dbUser, "dbUser");
        dbPassword = dbPassword == null ? "" : dbPassword;
        Objects.requireNonNull(kafka, "kafka");
        Objects.requireNonNull(inventory, "inventory");
        Objects.requireNonNull(payments, "payments");
        Objects.requireNonNull(ledgerToken, "ledgerToken");
    }

    @Override
    public String toString() {
        return "Target[" + jdbcUrl + " as " + dbUser + ", kafka " + kafka + ", inventory " + inventory + ", payments "
                + payments + "]";
    }
}
