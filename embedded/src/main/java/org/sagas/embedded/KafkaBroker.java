package org.sagas.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.sagas.embedded.Leftover.Signal;
import org.sagas.embedded.Leftover.Step;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kafka broker in KRaft mode (broker and controller in one process), run as a
 * child JVM from the {@code kafka_2.13} jars on this JVM's class path.
 *
 * <p>Its storage is formatted on first start and kept in the data directory; its log goes to
 * {@code kafka.log} there, never to our console. {@link #stop()} and {@link #kill()} let tests
 * inject a broker outage; {@link #start()} brings it back on the same port with the same data.
 *
 * <p>The broker does not outlive this JVM: it runs under {@link ParentWatch}, which exits when
 * this JVM dies. While it runs, this JVM holds {@code broker.owner} in the data directory
 * ({@link OwnerLock}) and the broker's pid is in {@code broker.pid}; a start that can take the
 * lock ends a broker a dead owner left running there (ADR 0013). Not thread-safe.
 */
public final class KafkaBroker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KafkaBroker.class);
    private static final String CLUSTER_ID = "c2FnYXMtZW1iZWRkZWQtMQ";
    private static final String SCRAM = "SCRAM-SHA-512";
    /** Orderly shutdown (ParentWatch's own bound is shorter), then SIGKILL. */
    private static final List<Step> END_LEFTOVER = List.of(new Step(Signal.TERM, Duration.ofSeconds(45)),
            new Step(Signal.KILL, Duration.ofSeconds(15)));

    private final Path dataDirectory;
    private final int port;
    private final int controllerPort;
    /** This node's id in its cluster (1 on its own). */
    private final int nodeId;
    /** {@code controller.quorum.voters}: every member's {@code id@host:controllerPort}. */
    private final String voters;
    /** How many brokers the cluster has: the replication its internal topics and defaults ask for. */
    private final int clusterSize;
    /** The SASL/SCRAM super user's password; null: PLAINTEXT, anyone who reaches the port. */
    private String superPassword;
    private Process process;
    private OwnerLock owner;

    public KafkaBroker(Path dataDirectory, int port) {
        this.dataDirectory = dataDirectory.toAbsolutePath().normalize();
        this.port = port == 0 ? FreePorts.find() : port;
        this.controllerPort = FreePorts.find();
        this.nodeId = 1;
        this.voters = "1@127.0.0.1:" + controllerPort;
        this.clusterSize = 1;
    }

    /** A member of a {@link KafkaCluster}: broker and controller, one vote in the quorum. */
    KafkaBroker(Path dataDirectory, int nodeId, int port, int controllerPort, String voters, int clusterSize) {
        this.dataDirectory = dataDirectory.toAbsolutePath().normalize();
        this.port = port;
        this.controllerPort = controllerPort;
        this.nodeId = nodeId;
        this.voters = voters;
        this.clusterSize = clusterSize;
    }

    /**
     * Makes this broker, from its next start, authenticate every client with SASL/SCRAM-SHA-512 and
     * authorize them by ACLs (none granted: only {@link #SUPER_USER} may do anything until someone
     * grants more). The super user is created when the storage is formatted, so call this before
     * the first start of a data directory. Its controller listener takes only the super user.
     */
    public KafkaBroker secured(String superUserPassword) {
        if (superUserPassword == null || superUserPassword.length() < 16
                || superUserPassword.chars().anyMatch(c -> "\"\\,[]=".indexOf(c) >= 0)) {
            throw new IllegalArgumentException("the super user's password needs 16 characters or more, without \" \\ , [ ] =");
        }
        this.superPassword = superUserPassword;
        return this;
    }

    /** The user that may do anything on a {@link #secured} broker. */
    public static final String SUPER_USER = "sagas-admin";

    /** Client settings that sign in as {@link #SUPER_USER} (empty on a PLAINTEXT broker). */
    public Map<String, Object> superUserConfig() {
        if (superPassword == null) {
            return Map.of();
        }
        return Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", SCRAM,
                "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                        + SUPER_USER + "\" password=\"" + superPassword + "\";");
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /**
     * Formats the storage if needed, starts the broker and waits until it answers. A broker left
     * running in the data directory by a process that died is ended first.
     *
     * @throws DataDirectoryInUseException when a live process (this JVM included) runs a broker there
     */
    public KafkaBroker start() {
        if (process != null && process.isAlive()) {
            return this;
        }
        if (owner == null) {
            owner = OwnerLock.acquire(dataDirectory.resolve("broker.owner"), dataDirectory);
        }
        try {
            Files.createDirectories(dataDirectory);
            Leftover.end(pidFile(), "Kafka broker of " + dataDirectory, this::isBrokerOf, END_LEFTOVER);
            Path config = writeConfig();
            if (!Files.exists(dataDirectory.resolve("logs").resolve("meta.properties"))) {
                format(config);
            }
            process = javaProcess("kafka.Kafka", config.toString()).start();
            Files.writeString(pidFile(), process.pid() + "\n", StandardCharsets.UTF_8);
            try {
                // Generous: a broker killed and started again registers only once its previous
                // session has timed out, and a machine short of CPU stretches every step (one core
                // shared with three test JVMs took over 90 s); one that exits is seen at once
                awaitReady(Duration.ofSeconds(180));
            } catch (IOException | RuntimeException e) {
                end(true); // never leave a half-started broker behind
                throw e;
            }
            log.info("Kafka broker ready at {} (data {})", bootstrapServers(), dataDirectory);
            return this;
        } catch (IOException e) {
            end(true);
            throw new UncheckedIOException("Kafka broker did not start: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            end(true);
            throw e;
        }
    }

    /** {@code java … ParentWatch kafka.Kafka <this directory's server.properties>}. */
    private boolean isBrokerOf(List<String> argv) {
        Path config = dataDirectory.resolve("server.properties");
        return argv.contains("kafka.Kafka") && argv.stream().anyMatch(a -> Leftover.sameFile(a, config));
    }

    private Path pidFile() {
        return dataDirectory.resolve("broker.pid");
    }

    /** Creates the topics that do not exist yet. */
    public void createTopics(Collection<String> topics, int partitions) {
        try (Admin admin = admin()) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = topics.stream().filter(t -> !existing.contains(t))
                    .map(t -> new NewTopic(t, partitions, (short) 1)).collect(Collectors.toList());
            try {
                admin.createTopics(missing).all().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw new IllegalStateException("could not create topics " + missing, e.getCause());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not create topics on " + bootstrapServers(), e);
        }
    }

    /** Graceful stop (SIGTERM), waiting for the process to end. */
    public void stop() {
        end(false);
    }

    /** Abrupt stop (SIGKILL), as a crash would do. */
    public void kill() {
        end(true);
    }

    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    public long pid() {
        return process == null ? -1 : process.pid();
    }

    @Override
    public void close() {
        stop();
    }

    private void end(boolean forcibly) {
        if (process == null) {
            releaseOwnership();
            return;
        }
        if (forcibly) {
            process.destroyForcibly();
        } else {
            process.destroy();
        }
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        process = null;
        releaseOwnership();
    }

    /** Gives the data directory up: called once our broker ended (or never started). */
    private void releaseOwnership() {
        if (owner == null) {
            return;
        }
        try {
            Files.deleteIfExists(pidFile());
        } catch (IOException e) {
            log.warn("could not remove {}: {}", pidFile(), e.toString());
        }
        owner.close();
        owner = null;
    }

    private Path writeConfig() throws IOException {
        Properties p = new Properties();
        p.setProperty("process.roles", "broker,controller");
        p.setProperty("node.id", Integer.toString(nodeId));
        p.setProperty("controller.quorum.voters", voters);
        p.setProperty("controller.listener.names", "CONTROLLER");
        if (superPassword == null) {
            p.setProperty("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
            p.setProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
            p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
            p.setProperty("inter.broker.listener.name", "PLAINTEXT");
        } else {
            secure(p);
        }
        p.setProperty("log.dirs", dataDirectory.resolve("logs").toString());
        p.setProperty("num.partitions", "4");
        // On a cluster every topic, ours and Kafka Streams' internal ones, is replicated to three
        // brokers and a write is acknowledged by two of them (docs/operations.md, "A cluster").
        String replicas = Integer.toString(Math.min(3, clusterSize));
        String minInSync = clusterSize >= 3 ? "2" : "1";
        p.setProperty("default.replication.factor", replicas);
        p.setProperty("min.insync.replicas", minInSync);
        p.setProperty("offsets.topic.replication.factor", replicas);
        p.setProperty("offsets.topic.num.partitions", "4");
        p.setProperty("transaction.state.log.replication.factor", replicas);
        p.setProperty("transaction.state.log.min.isr", minInSync);
        p.setProperty("share.coordinator.state.topic.replication.factor", replicas);
        p.setProperty("share.coordinator.state.topic.min.isr", minInSync);
        p.setProperty("group.initial.rebalance.delay.ms", "0");
        p.setProperty("auto.create.topics.enable", "true");
        p.setProperty("log.flush.interval.messages", "9223372036854775807");
        if (clusterSize > 1) {
            // A broker that comes back catches up and takes its partitions' leadership back.
            p.setProperty("unclean.leader.election.enable", "false");
            p.setProperty("auto.leader.rebalance.enable", "true");
            p.setProperty("leader.imbalance.check.interval.seconds", "30");
        } else {
            // Idle, a single-node broker wakes for its own clocks (docs/benchmarks.md, "Idle"): the
            // controller appends a no-op record to the metadata log every 500 ms by default (each one
            // written, committed and published to the broker); no follower and no other broker needs
            // them here. Heartbeats to its own controller every 3 s (2 s by default). The session
            // stays at its default 9 s: a broker that was killed cannot register again until its
            // previous session has expired, so a longer session makes every restart after a crash
            // that much longer (30 s cost 30 s; docs/benchmarks.md, "Idle"). A cluster keeps the
            // defaults: a killed broker must be fenced and its leaderships moved within seconds.
            p.setProperty("metadata.max.idle.interval.ms", "30000");
            p.setProperty("broker.heartbeat.interval.ms", "3000");
        }
        // Each request handler and network thread wakes every 300 ms, idle or not; 8 handlers and
        // 3 network threads per listener are sized for many cores, this broker shares two. One
        // network thread per listener reads and writes every connection's requests here (a few
        // hundred a second under load, each handled by the request handlers).
        p.setProperty("num.io.threads", "2");
        p.setProperty("num.network.threads", "1");
        Path file = dataDirectory.resolve("server.properties");
        if (superPassword != null) {
            ownerOnly(file); // it holds the super user's password
        }
        try (var out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(out, "written by sagas");
        }
        return file;
    }

    /** Makes {@code file}, empty if new, readable and writable by its owner alone (mode 600). */
    private static void ownerOnly(Path file) throws IOException {
        var mode = java.nio.file.attribute.PosixFilePermissions.fromString("rw-------");
        if (Files.exists(file)) {
            Files.setPosixFilePermissions(file, mode);
        } else {
            Files.createFile(file, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(mode));
        }
    }

    /**
     * Clients on SASL_PLAINTEXT with SCRAM (credentials in the cluster metadata, managed with the
     * admin API); the controller listener with PLAIN and only the super user, since SCRAM
     * credentials live in the metadata the controller serves. ACLs by KRaft's StandardAuthorizer.
     */
    private void secure(Properties p) {
        String scramLogin = "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                + SUPER_USER + "\" password=\"" + superPassword + "\";";
        String plainLogin = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
                + SUPER_USER + "\" password=\"" + superPassword + "\" user_" + SUPER_USER + "=\"" + superPassword + "\";";
        p.setProperty("listeners", "SASL_PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.setProperty("advertised.listeners", "SASL_PLAINTEXT://127.0.0.1:" + port);
        p.setProperty("listener.security.protocol.map", "SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT");
        p.setProperty("inter.broker.listener.name", "SASL_PLAINTEXT");
        p.setProperty("sasl.mechanism.inter.broker.protocol", SCRAM);
        p.setProperty("sasl.mechanism.controller.protocol", "PLAIN");
        p.setProperty("listener.name.sasl_plaintext.sasl.enabled.mechanisms", SCRAM);
        p.setProperty("listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config", scramLogin);
        p.setProperty("listener.name.controller.sasl.enabled.mechanisms", "PLAIN");
        p.setProperty("listener.name.controller.plain.sasl.jaas.config", plainLogin);
        p.setProperty("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        p.setProperty("super.users", "User:" + SUPER_USER);
        p.setProperty("allow.everyone.if.no.acl.found", "false");
    }

    private void format(Path config) throws IOException {
        List<String> args = new ArrayList<>(List.of("format", "-t", CLUSTER_ID, "-c", config.toString(),
                "--ignore-formatted"));
        if (superPassword != null) {
            args.addAll(List.of("--add-scram", SCRAM + "=[name=" + SUPER_USER + ",password=" + superPassword + "]"));
        }
        Process format = javaProcess("kafka.tools.StorageTool", args.toArray(String[]::new)).start();
        try {
            if (!format.waitFor(120, TimeUnit.SECONDS) || format.exitValue() != 0) {
                format.destroyForcibly();
                throw new IOException("formatting Kafka storage failed; see " + logFile());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while formatting Kafka storage", e);
        }
    }

    private ProcessBuilder javaProcess(String mainClass, String... args) throws IOException {
        Path logConfig = dataDirectory.resolve("kafka-logback.xml");
        Files.writeString(logConfig, "<configuration>\n"
                + "  <appender name=\"FILE\" class=\"ch.qos.logback.core.FileAppender\">\n"
                + "    <file>" + logFile() + "</file>\n"
                + "    <encoder><pattern>%d{ISO8601} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>\n"
                + "  </appender>\n"
                + "  <logger name=\"org.apache.kafka\" level=\"INFO\"/>\n"
                + "  <logger name=\"kafka\" level=\"INFO\"/>\n"
                + "  <root level=\"WARN\"><appender-ref ref=\"FILE\"/></root>\n"
                + "</configuration>\n");
        Path log4jConfig = dataDirectory.resolve("kafka-log4j2.properties");
        Files.writeString(log4jConfig, "status = error\n"
                + "appender.file.type = File\n"
                + "appender.file.name = FILE\n"
                + "appender.file.fileName = " + logFile() + "\n"
                + "appender.file.layout.type = PatternLayout\n"
                + "appender.file.layout.pattern = %d %p [%t] %c - %m%n\n"
                + "rootLogger.level = warn\n"
                + "rootLogger.appenderRef.file.ref = FILE\n");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xms256m");
        command.add("-Xmx768m");
        // The serial collector: no concurrent or service threads waking while idle (G1's refine and
        // service threads do), and short young collections on a heap this size.
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        // Its hsperfdata sampler wakes the JVM 20 times a second, idle or not (docs/decisions/0029).
        command.add("-XX:-UsePerfData");
        command.add("-Djava.awt.headless=true");
        command.add("-Dlogback.configurationFile=" + logConfig);
        command.add("-Dlog4j2.configurationFile=" + log4jConfig);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(ParentWatch.class.getName()); // exits when we die; stdin stays the pipe from us
        command.add(mainClass);
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.redirectErrorStream(true);
        builder.redirectOutput(Redirect.appendTo(dataDirectory.resolve("kafka.out").toFile()));
        return builder;
    }

    private Path logFile() {
        return dataDirectory.resolve("kafka.log");
    }

    private void awaitReady(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("Kafka broker exited with " + process.exitValue() + "; see " + logFile());
            }
            if (!listening()) {
                pause(200);
                continue;
            }
            try (Admin admin = admin()) {
                admin.describeCluster().nodes().get(2, TimeUnit.SECONDS);
                return;
            } catch (ExecutionException | TimeoutException e) {
                pause(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for the Kafka broker", e);
            }
        }
        throw new IOException("Kafka broker not ready after " + timeout.toSeconds() + " s; see " + logFile());
    }

    /** A plain TCP probe first, so the admin client does not log refused connections while the JVM boots. */
    private boolean listening() {
        try (java.net.Socket socket = new java.net.Socket()) {
            socket.connect(new java.net.InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private Admin admin() {
        Map<String, Object> config = new java.util.HashMap<>(superUserConfig());
        config.putAll(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000,
                AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500));
        return Admin.create(config);
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
