package org.sagas.peers;

import com.gruelbox.transactionoutbox.DefaultPersistor;
import com.gruelbox.transactionoutbox.Dialect;
import com.gruelbox.transactionoutbox.Instantiator;
import com.gruelbox.transactionoutbox.Submitter;
import com.gruelbox.transactionoutbox.ThreadLocalContextTransactionManager;
import com.gruelbox.transactionoutbox.TransactionManager;
import com.gruelbox.transactionoutbox.TransactionOutbox;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * gruelbox transaction-outbox: the writer schedules a call in its transaction (stored in the
 * library's own table); right after the commit the library runs it on an executor, and the call
 * sends the message with the relay's producer settings and waits for the acknowledgement.
 */
final class TransactionOutboxPeer implements AutoCloseable {
    private final ThreadLocalContextTransactionManager transactions;
    private final TransactionOutbox outbox;
    private final ExecutorService executor = Executors.newFixedThreadPool(4);
    private final KafkaProducer<String, String> producer;

    /** What the outbox records in the transaction and invokes after the commit. */
    public interface Publisher {
        void publish(String topic, String key, String payload, String messageId);
    }

    TransactionOutboxPeer(DataSource dataSource, String bootstrapServers, SteadyWriter writer) {
        this.producer = Kafka.producer(bootstrapServers);
        Publisher publisher = (topic, key, payload, messageId) -> {
            UUID id = UUID.fromString(messageId);
            try {
                producer.send(Kafka.record(topic, key, payload, id)).get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } catch (java.util.concurrent.ExecutionException e) {
                // The library records the failure and retries the call later.
                throw new IllegalStateException(e.getCause());
            }
            writer.acknowledged(id, System.nanoTime());
        };
        this.transactions = TransactionManager.fromDataSource(dataSource);
        this.outbox = TransactionOutbox.builder()
                .transactionManager(transactions)
                .persistor(DefaultPersistor.builder().dialect(Dialect.POSTGRESQL_9).build())
                .instantiator(Instantiator.using(type -> publisher))
                .submitter(Submitter.withExecutor(executor))
                .build();
        outbox.initialize();
    }

    /** Commits one message through the library, as a saga step would. */
    void write(String topic, String key, String payload, UUID messageId) {
        transactions.inTransaction(() -> outbox.schedule(Publisher.class).publish(topic, key, payload,
                messageId.toString()));
    }

    @Override
    public void close() {
        executor.shutdown();
        try {
            executor.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close();
    }
}
