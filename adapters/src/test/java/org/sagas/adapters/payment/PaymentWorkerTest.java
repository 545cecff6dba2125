package org.sagas.adapters.payment;

import org.sagas.orchestrator.messaging.KafkaConnection;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.sagas.adapters.http.ParticipantError;
import org.sagas.adapters.messaging.ConsumerLoop;
import org.sagas.orchestrator.messaging.Topics;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sagas.orchestrator.ordering.OrderMessages;
import org.sagas.orchestrator.ordering.OrderMessages.ChargePayment;
import org.sagas.orchestrator.resilience.TransientFailure;
import org.sagas.orchestrator.ordering.PaymentProvider;

/** What the worker makes of the provider's outcomes: a reply, a record set aside, or a retry. */
class PaymentWorkerTest {
    private final AtomicInteger calls = new AtomicInteger();
    private PaymentWorker worker;

    @AfterEach
    void close() {
        worker.close();
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 401, 403, 422})
    void shouldAnswerARefusedChargeAsADeclineWithItsCodeInsteadOfRetrying(int status) {
        worker = worker(command -> {
            calls.incrementAndGet();
            throw refused(status);
        });

        PaymentWorker.Charged charged = worker.charge(List.of(command("order:charge")));

        assertThat(charged.failed()).isNull();
        assertThat(charged.rejected()).isEmpty();
        assertThat(charged.replies().values()).singleElement().satisfies(reply -> {
            assertThat(reply.type()).isEqualTo("PaymentDeclined");
            OrderMessages.PaymentDeclined declined = (OrderMessages.PaymentDeclined) reply.payload();
            assertThat(declined.code()).isEqualTo("payment_refused");
            assertThat(declined.reason()).contains("answered " + status);
        });
        assertThat(calls).hasValue(1);
    }

    @Test
    void shouldRetryTheBatchWhenTheProviderFails() {
        worker = worker(command -> {
            throw new TransientFailure("payment POST /charges answered 503");
        });

        assertThatThrownBy(() -> worker.handle(List.of(command("order:charge"))))
                .isInstanceOf(TransientFailure.class);
    }

    @Test
    void shouldCallTheProviderForAllCommandsOfABatchSideBySide() {
        // Each call waits until all three are under way: one after the other, they never would
        CountDownLatch underWay = new CountDownLatch(3);
        worker = worker(command -> {
            underWay.countDown();
            try {
                if (!underWay.await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the calls did not overlap");
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            throw refused(422);
        });

        PaymentWorker.Charged charged = worker.charge(List.of(command("a:charge"), command("b:charge"),
                command("c:charge")));

        assertThat(charged.replies()).hasSize(3);
    }

    @Test
    void shouldDeadLetterAKeyNoProviderTakesWithoutCallingIt() {
        worker = worker(command -> {
            calls.incrementAndGet();
            return PaymentProvider.Charge.CAPTURED;
        });

        List<ConsumerLoop.Rejected> rejected = worker.charge(List.of(command("k".repeat(256)))).rejected();

        assertThat(rejected).singleElement().satisfies(r -> assertThat(r.reason()).contains("idempotencyKey"));
        assertThat(calls).hasValue(0);
    }

    @Test
    void shouldDeadLetterTheCommandOfAReplyNoSagaTakes() {
        // Given a sink (the engine of this process) that knows no saga of the batch's first order
        ConsumerRecord<String, byte[]> orphan = command("orphan:charge");
        ConsumerRecord<String, byte[]> known = command("known:charge");
        worker = new PaymentWorker((out, traceOf) -> out.stream().filter(r -> r.key().equals(orphan.key())).toList(),
                KafkaConnection.plaintext("127.0.0.1:9"), "unit", 1, 4, command -> PaymentProvider.Charge.CAPTURED,
                refund -> PaymentProvider.Charge.REFUNDED, ConsumerLoop.BatchGate.NONE, new SimpleMeterRegistry(),
                ConsumerLoop.DEFAULT_RETRY_FOR, ConsumerLoop.DeadLetterListener.NONE);

        // When the batch is handled, that command is set aside for the dead letters with its reason
        List<ConsumerLoop.Rejected> rejected = worker.handle(List.of(orphan, known));

        assertThat(rejected).singleElement().satisfies(r -> {
            assertThat(r.record()).isSameAs(orphan);
            assertThat(r.reason()).contains("no saga " + orphan.key()).contains("PaymentCaptured");
        });
    }

    private static ParticipantError refused(int status) {
        return new ParticipantError("payment", "payment POST /charges answered " + status + ": no", status, "{}");
    }

    private static PaymentWorker worker(Function<ChargePayment, PaymentProvider.Charge> charge) {
        // Consumers are built but never started: no broker, and with nothing to record no database.
        return new PaymentWorker(null, KafkaConnection.plaintext("127.0.0.1:9"), "unit", 1, 4, charge,
                refund -> PaymentProvider.Charge.REFUNDED, () -> { }, ConsumerLoop.BatchGate.NONE, new SimpleMeterRegistry());
    }

    private static ConsumerRecord<String, byte[]> command(String key) {
        UUID orderId = UUID.randomUUID();
        String body = "{\"orderId\":\"" + orderId + "\",\"customerId\":\"c\",\"amountCents\":700,"
                + "\"currency\":\"EUR\",\"idempotencyKey\":\"" + key + "\"}";
        ConsumerRecord<String, byte[]> record = new ConsumerRecord<>(Topics.PAYMENTS_COMMANDS, 0, 0L,
                orderId.toString(), body.getBytes(StandardCharsets.UTF_8));
        record.headers().add(Topics.MESSAGE_ID, UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8));
        record.headers().add(Topics.MESSAGE_TYPE, "ChargePayment".getBytes(StandardCharsets.UTF_8));
        return record;
    }
}
