package org.sagas.app;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.sagas.adapters.messaging.OrderCommandConsumer;
import org.sagas.adapters.messaging.SagaReplyConsumer;
import org.sagas.adapters.payment.PaymentWorker;
import org.sagas.orchestrator.messaging.KafkaConnection;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.reconciler.FindingSink;
import org.sagas.reconciler.ReconcilerStreams;
import org.sagas.reconciler.RepairWorker;

/**
 * Who may do what on an authenticating Kafka cluster: one SCRAM user per role, and the ACLs that
 * role needs and no more (docs/security.md, ADR 0022). Every product message is published by the
 * relay from the outbox, so only the relay writes the command and reply topics; the payment
 * worker's replies reach Kafka that way. Consumers read their topic and write its dead-letter twin.
 * The operator API (in the {@code api} role) reads dead letters and may redrive them, except
 * payment replies: nobody but the relay writes {@code payments.events}. The api role also consumes
 * {@code orders.commands}, which no role writes: shops do, under ACLs of their own (docs/security.md).
 */
enum KafkaAccess {
    API(Role.API) {
        @Override
        List<AclBinding> grants(String principal) {
            // Orders placed through Kafka are consumed by the api role (docs/events.md).
            List<AclBinding> acl = new ArrayList<>(consumer(principal, Topics.ORDERS_COMMANDS,
                    OrderCommandConsumer.CONSUMER));
            for (String topic : Topics.all()) {
                if (Topics.isDeadLetter(topic)) {
                    acl.add(topic(principal, topic, AclOperation.READ));
                    String source = topic.substring(0, topic.length() - ".dlt".length());
                    if (!source.equals(Topics.PAYMENTS_EVENTS)) {
                        acl.add(topic(principal, source, AclOperation.WRITE));
                    }
                }
            }
            return acl;
        }
    },
    SAGA_WORKER(Role.SAGA_WORKER) {
        @Override
        List<AclBinding> grants(String principal) {
            return consumer(principal, Topics.PAYMENTS_EVENTS, SagaReplyConsumer.CONSUMER);
        }
    },
    RELAY(Role.RELAY) {
        @Override
        List<AclBinding> grants(String principal) {
            return List.of(Topics.PAYMENTS_COMMANDS, Topics.PAYMENTS_EVENTS, Topics.ORDERS_EVENTS,
                    Topics.NOTIFICATIONS, Topics.RECONCILIATION_REPAIRS).stream()
                    .map(t -> topic(principal, t, AclOperation.WRITE)).toList();
        }
    },
    PAYMENT_WORKER(Role.PAYMENT_WORKER) {
        @Override
        List<AclBinding> grants(String principal) {
            return consumer(principal, Topics.PAYMENTS_COMMANDS, PaymentWorker.CONSUMER);
        }
    },
    RECONCILER(Role.RECONCILER) {
        @Override
        List<AclBinding> grants(String principal) {
            List<AclBinding> acl = new ArrayList<>();
            acl.addAll(consumer(principal, Topics.RECONCILIATION_FINDINGS, FindingSink.CONSUMER));
            acl.addAll(consumer(principal, Topics.RECONCILIATION_REPAIRS, RepairWorker.CONSUMER));
            for (String input : List.of(Topics.ORDERS_EVENTS, Topics.PAYMENTS_COMMANDS, Topics.PAYMENTS_EVENTS,
                    Topics.LEDGER_CHARGES, Topics.LEDGER_RESERVATIONS)) {
                acl.add(topic(principal, input, AclOperation.READ));
            }
            for (String output : List.of(Topics.LEDGER_CHARGES, Topics.LEDGER_RESERVATIONS,
                    Topics.RECONCILIATION_FINDINGS)) {
                acl.add(topic(principal, output, AclOperation.WRITE));
            }
            // Kafka Streams: its group, its internal topics and its transactions, all named by its application id.
            String app = ReconcilerStreams.APPLICATION_ID;
            acl.add(allow(principal, new ResourcePattern(ResourceType.GROUP, app, PatternType.LITERAL), AclOperation.READ));
            acl.add(allow(principal, new ResourcePattern(ResourceType.TOPIC, app, PatternType.PREFIXED), AclOperation.ALL));
            acl.add(allow(principal, new ResourcePattern(ResourceType.TRANSACTIONAL_ID, app, PatternType.PREFIXED),
                    AclOperation.ALL));
            return acl;
        }
    },
    /** The participants' stand-in: it only checks that Kafka answers. */
    SANDBOX(Role.SANDBOX) {
        @Override
        List<AclBinding> grants(String principal) {
            return List.of();
        }
    };

    private final Role role;

    KafkaAccess(Role role) {
        this.role = role;
    }

    /** The role's name as {@code ./sagas <role>} spells it. */
    String role() {
        return role.label();
    }

    /** The role's SCRAM user. */
    String user() {
        return "sagas-" + role.label();
    }

    /** What the role's user may do beyond describing the product's topics, which every role may. */
    abstract List<AclBinding> grants(String principal);

    /** Every ACL of a user that acts in {@code roles} (one process may run several). */
    static List<AclBinding> acls(String user, Collection<KafkaAccess> roles) {
        String principal = "User:" + user;
        List<AclBinding> acl = new ArrayList<>();
        for (String topic : Topics.all()) {
            acl.add(topic(principal, topic, AclOperation.DESCRIBE));
            acl.add(topic(principal, topic, AclOperation.DESCRIBE_CONFIGS)); // the retention check at start
        }
        roles.forEach(access -> acl.addAll(access.grants(principal)));
        return acl;
    }

    /** The access of a role by its name. */
    static KafkaAccess of(String role) {
        Role r = Role.of(role).orElseThrow(() -> new IllegalArgumentException("no role " + role));
        return Arrays.stream(values()).filter(a -> a.role == r).findFirst().orElseThrow();
    }

    /**
     * Creates or updates the SCRAM user {@code user} with {@code password} and grants it the ACLs of
     * {@code roles}, through an admin client signed in as a super user; doing it again changes nothing.
     */
    static void grant(Admin admin, String user, String password, Collection<KafkaAccess> roles) {
        try {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), password)))
                    .all().get(30, TimeUnit.SECONDS);
            admin.createAcls(acls(user, roles)).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new ConfigurationError("cannot set up Kafka user " + user + ": " + e.getCause().getMessage(), e);
        } catch (TimeoutException e) {
            throw new ConfigurationError("Kafka did not answer while setting up user " + user, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConfigurationError("interrupted while setting up Kafka user " + user, e);
        }
    }

    /**
     * {@code ./sagas kafka-access}: signed in as a super user (SAGA_KAFKA_USER), creates the
     * product's topics and each role's user with the password in its file under
     * SAGA_KAFKA_ROLE_CREDENTIALS_DIR, and grants it its ACLs. Run before the roles start; running it
     * again changes nothing (or updates passwords and adds missing grants).
     */
    static int setUp(Settings settings, PrintStream out) {
        String dir = settings.raw().getOrDefault(Settings.KAFKA_ROLE_CREDENTIALS.name(), "");
        if (settings.embeddedKafka() || !settings.kafka().authenticated() || dir.isEmpty()) {
            throw new ConfigurationError("kafka-access needs SAGA_KAFKA_BOOTSTRAP, a super user in SAGA_KAFKA_USER"
                    + " (and its password) and SAGA_KAFKA_ROLE_CREDENTIALS_DIR");
        }
        apply(settings.kafka(), Path.of(dir), out);
        return 0;
    }

    /**
     * What {@code ./sagas kafka-access} does, signed in through {@code superUser}: the product's
     * topics, then for each role its user with the password in {@code credentials/<role>} and its
     * ACLs. {@code ./sagas cluster} sets its brokers up through here too.
     */
    static void apply(KafkaConnection superUser, Path credentials, PrintStream out) {
        try (Admin admin = Admin.create(superUser.config(Map.of("request.timeout.ms", 10_000,
                "default.api.timeout.ms", 30_000)))) {
            Node.ensureTopics(admin, superUser.bootstrapServers());
            for (KafkaAccess role : all()) {
                Path file = credentials.resolve(role.role());
                if (!Files.isRegularFile(file)) {
                    throw new ConfigurationError("no password file for role " + role.role() + " at " + file);
                }
                String password = SecretFile.read("SAGA_KAFKA_ROLE_CREDENTIALS_DIR", file.toString());
                grant(admin, role.user(), password, Set.of(role));
                out.printf("%-16s user %-22s %d ACLs%n", role.role(), role.user(), acls(role.user(), Set.of(role)).size());
            }
        }
    }

    static Set<KafkaAccess> all() {
        return EnumSet.allOf(KafkaAccess.class);
    }

    private static List<AclBinding> consumer(String principal, String topic, String group) {
        return List.of(topic(principal, topic, AclOperation.READ),
                allow(principal, new ResourcePattern(ResourceType.GROUP, group, PatternType.LITERAL), AclOperation.READ),
                topic(principal, Topics.deadLetter(topic), AclOperation.WRITE));
    }

    private static AclBinding topic(String principal, String topic, AclOperation operation) {
        return allow(principal, new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL), operation);
    }

    private static AclBinding allow(String principal, ResourcePattern resource, AclOperation operation) {
        return new AclBinding(resource, new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
    }
}
