package org.sagas.peers;

import com.gruelbox.transactionoutbox.DefaultPersistor;
import com.gruelbox.transactionoutbox.Dialect;
import com.gruelbox.transactionoutbox.Instantiator;
import com.gruelbox.transactionoutbox.Persistor;
import com.gruelbox.transactionoutbox.Submitter;
import com.gruelbox.transactionoutbox.ThreadLocalContextTransactionManager;
import com.gruelbox.transactionoutbox.TransactionManager;
import com.gruelbox.transactionoutbox.TransactionOutbox;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * gruelbox transaction-outbox: the writer schedules a call in its transaction (stored in the
 * library's own table, {@code txno_outbox}); right after the commit the library runs it on an
 * executor, and the call sends the message with the relay's producer settings and waits for the
 * acknowledgement; the library then deletes the entry.
 *
 * <p>A backlog ({@link #scheduleBacklog}) is stored as entries whose post-commit attempt never ran
 * (as after a crash or while the broker was away) and are already due for retry; {@link #flush()}
 * is the library's own way of picking such entries up. Not thread-safe.
 */
final class TransactionOutboxPeer implements AutoCloseable {
    static final String TABLE = "txno_outbox";
    private static final int BACKLOG_PER_TRANSACTION = 1000;
    /** The library's default: how long a submitted entry is left alone before a flush retries it. */
    private static final Duration ATTEMPT_FREQUENCY = Duration.ofMinutes(2);

    private final ThreadLocalContextTransactionManager transactions;
    private final TransactionOutbox outbox;
    private final TransactionOutbox parked;
    private final ThreadPoolExecutor executor = (ThreadPoolExecutor) Executors.newFixedThreadPool(4);
    private final KafkaProducer<String, String> producer;

    /** What the outbox records in the transaction and invokes after the commit. */
    public interface Publisher {
        void publish(String topic, String key, String payload, String messageId);
    }

    TransactionOutboxPeer(DataSource dataSource, String bootstrapServers, Acks acks) {
        this.producer = Kafka.producer(bootstrapServers);
        Publisher publisher = (topic, key, payload, messageId) -> {
            UUID id = UUID.fromString(messageId);
            try {
                producer.send(Kafka.record(topic, key, payload, id)).get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } catch (ExecutionException e) {
                // The library records the failure and retries the call later.
                throw new IllegalStateException(e.getCause());
            }
            acks.acknowledged(topic, id, System.nanoTime());
        };
        this.transactions = TransactionManager.fromDataSource(dataSource);
        Persistor persistor = DefaultPersistor.builder().dialect(Dialect.POSTGRESQL_9).build();
        this.outbox = TransactionOutbox.builder()
                .transactionManager(transactions)
                .persistor(persistor)
                .instantiator(Instantiator.using(type -> publisher))
                .submitter(Submitter.withExecutor(executor))
                .attemptFrequency(ATTEMPT_FREQUENCY)
                .build();
        // Same table; runs nothing after the commit. Its clock runs one attempt interval (and a
        // second) behind, so the entries it stores are due for retry at once: the library refuses
        // to store a next attempt time that is not in the future by its own clock.
        Clock behind = Clock.offset(Clock.systemUTC(), ATTEMPT_FREQUENCY.plusSeconds(1).negated());
        this.parked = TransactionOutbox.builder()
                .transactionManager(transactions)
                .persistor(persistor)
                .instantiator(Instantiator.using(type -> publisher))
                .submitter((entry, process) -> { })
                .attemptFrequency(ATTEMPT_FREQUENCY)
                .clockProvider(() -> behind)
                .build();
        outbox.initialize();
        parked.initialize();
    }

    /** Commits one message through the library, as a saga step would. */
    void write(String topic, String key, String payload, UUID messageId) {
        transactions.inTransaction(() -> outbox.schedule(Publisher.class).publish(topic, key, payload,
                messageId.toString()));
    }

    /** Stores {@code rows} entries, {@code BACKLOG_PER_TRANSACTION} per transaction, none of them run yet. */
    void scheduleBacklog(String topic, long rows, int aggregates, LongFunction<String> payload) {
        for (long from = 0; from < rows; from += BACKLOG_PER_TRANSACTION) {
            long first = from;
            long last = Math.min(rows, from + BACKLOG_PER_TRANSACTION);
            transactions.inTransaction(() -> {
                for (long i = first; i < last; i++) {
                    parked.schedule(Publisher.class).publish(topic, "drain-" + i % aggregates, payload.apply(i),
                            UUID.randomUUID().toString());
                }
            });
        }
    }

    /** One {@link TransactionOutbox#flush()}: submits a batch of due entries; false when none was due. */
    boolean flush() {
        return outbox.flush();
    }

    @Override
    public void close() {
        // Calls under way finish (their entries deleted); those still queued after a capped drain
        // are dropped and stay in the table, to be retried by a later flush.
        executor.getQueue().clear();
        executor.shutdown();
        try {
            executor.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close();
    }
}
