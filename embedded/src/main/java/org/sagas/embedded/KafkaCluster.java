package org.sagas.embedded;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

/**
 * A KRaft cluster of real brokers on this machine, each a child JVM of its own that is broker and
 * controller at once, with every topic replicated to three of them and writes acknowledged by two
 * ({@code min.insync.replicas=2}). With three members one may die, or be killed on purpose, and
 * the cluster goes on: {@link #member(int)} gives each to stop, kill and start again on the same
 * port and data. Not thread-safe.
 */
public final class KafkaCluster implements AutoCloseable {
    private final List<KafkaBroker> members;

    private KafkaCluster(List<KafkaBroker> members) {
        this.members = members;
    }

    /** {@code size} members under {@code dataDirectory} ({@code broker-1} …), not started yet. */
    public static KafkaCluster of(Path dataDirectory, int size) {
        if (size < 1) {
            throw new IllegalArgumentException("a cluster needs a broker at least, not " + size);
        }
        List<Integer> ports = new ArrayList<>();
        List<Integer> controllerPorts = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            ports.add(FreePorts.find());
            controllerPorts.add(FreePorts.find());
        }
        String voters = java.util.stream.IntStream.range(0, size)
                .mapToObj(i -> (i + 1) + "@127.0.0.1:" + controllerPorts.get(i)).collect(Collectors.joining(","));
        List<KafkaBroker> members = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            members.add(new KafkaBroker(dataDirectory.resolve("broker-" + (i + 1)), i + 1, ports.get(i),
                    controllerPorts.get(i), voters, size));
        }
        return new KafkaCluster(members);
    }

    /** Makes every member authenticate and authorize, as {@link KafkaBroker#secured} does one. */
    public KafkaCluster secured(String superUserPassword) {
        members.forEach(m -> m.secured(superUserPassword));
        return this;
    }

    /**
     * Starts every member at once (a quorum forms only when a majority runs) and waits until each
     * answers; if one cannot start, the others are stopped too.
     */
    public KafkaCluster start() {
        ExecutorService starting = Executors.newFixedThreadPool(members.size(), r -> {
            Thread t = new Thread(r, "kafka-cluster-start");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<KafkaBroker>> started = new ArrayList<>();
            for (KafkaBroker m : members) {
                started.add(starting.submit(m::start));
            }
            for (Future<KafkaBroker> f : started) {
                f.get();
            }
            return this;
        } catch (ExecutionException e) {
            close();
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IllegalStateException("interrupted while starting the Kafka cluster", e);
        } finally {
            starting.shutdownNow();
        }
    }

    /** Every member's client address, for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return members.stream().map(KafkaBroker::bootstrapServers).collect(Collectors.joining(","));
    }

    public int size() {
        return members.size();
    }

    /** The member with node id {@code id} (1 … {@link #size()}). */
    public KafkaBroker member(int id) {
        return members.get(id - 1);
    }

    /** The super user's client settings (empty on a PLAINTEXT cluster). */
    public java.util.Map<String, Object> superUserConfig() {
        return members.get(0).superUserConfig();
    }

    /**
     * Stops every member at once: one by one, the last ones would wait in vain for a quorum to
     * shut down in order.
     */
    @Override
    public void close() {
        List<Thread> stopping = new ArrayList<>();
        List<RuntimeException> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (KafkaBroker m : members) {
            Thread t = new Thread(() -> {
                try {
                    m.stop();
                } catch (RuntimeException e) {
                    failures.add(e);
                }
            }, "kafka-cluster-stop");
            t.start();
            stopping.add(t);
        }
        for (Thread t : stopping) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (!failures.isEmpty()) {
            RuntimeException first = failures.get(0);
            failures.subList(1, failures.size()).forEach(first::addSuppressed);
            throw first;
        }
    }
}
