package org.sagas.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.sagas.embedded.KafkaBroker;

/**
 * The Kafka passwords of a {@code ./sagas cluster}, each a {@link GeneratedSecret} (mode 600) in
 * {@code <data dir>/kafka-credentials/} (mode 700): the super user's, {@code sagas-admin}, and one
 * per role named after it, the layout {@code ./sagas kafka-access} reads from
 * SAGA_KAFKA_ROLE_CREDENTIALS_DIR (docs/security.md, "Who may write to Kafka"). A data directory
 * kept between runs keeps its passwords. Immutable.
 */
final class ClusterCredentials {
    static final String DIRECTORY = "kafka-credentials";

    private final Path directory;
    private final String superPassword;

    private ClusterCredentials(Path directory, String superPassword) {
        this.directory = directory;
        this.superPassword = superPassword;
    }

    /**
     * The passwords under {@code dataDir}, made now where there are none.
     *
     * @throws ConfigurationError if the brokers' storage was formatted without sign-in (by an older
     *     {@code ./sagas cluster}): the super user is created only when the storage is formatted
     */
    static ClusterCredentials ensure(Path dataDir) {
        Path directory = dataDir.resolve(DIRECTORY);
        Path superFile = directory.resolve(KafkaBroker.SUPER_USER);
        if (!Files.exists(superFile) && Files.exists(dataDir.resolve("kafka"))) {
            throw new ConfigurationError("the Kafka brokers in " + dataDir.resolve("kafka") + " were made without"
                    + " sign-in, and a broker's super user is created only with its storage: use a fresh --data-dir");
        }
        GeneratedSecret.ownerOnlyDirectory(directory);
        String superPassword = GeneratedSecret.ensure(superFile, "a fresh --data-dir");
        for (KafkaAccess role : KafkaAccess.all()) {
            GeneratedSecret.ensure(directory.resolve(role.role()), "a fresh --data-dir");
        }
        return new ClusterCredentials(directory, superPassword);
    }

    /** Where the password files are; SAGA_KAFKA_ROLE_CREDENTIALS_DIR of {@code ./sagas kafka-access}. */
    Path directory() {
        return directory;
    }

    String superPassword() {
        return superPassword;
    }

    Path superPasswordFile() {
        return directory.resolve(KafkaBroker.SUPER_USER);
    }

    Path passwordFile(KafkaAccess role) {
        return directory.resolve(role.role());
    }

    /** How a process of {@code role} signs in: its user, and its password's file, never the password. */
    Map<String, String> env(KafkaAccess role) {
        return Map.of(Settings.KAFKA_USER.name(), role.user(),
                Settings.KAFKA_PASSWORD_FILE.name(), passwordFile(role).toString());
    }
}
