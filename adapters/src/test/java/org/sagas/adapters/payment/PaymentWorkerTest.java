package org.sagas.adapters.payment;

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
import org.sagas.orchestrator.ordering.OrderMessages.ChargePayment;
import org.sagas.orchestrator.ordering.PaymentProvider;

/** Commands the worker must set aside rather than retry for ever: they would hold up their partition. */
class PaymentWorkerTest {
    private final AtomicInteger calls = new AtomicInteger();
    private PaymentWorker worker;

    @AfterEach
    void close() {
        worker.close();
    }

    @Test
    void shouldDeadLetterACommandTheProviderRefusesAsWrong() {
        worker = worker(command -> {
            calls.incrementAndGet();
            throw new ParticipantError("payment POST /charges answered 422: currency not supported", 422, "{}");
        });

        List<ConsumerLoop.Rejected> rejected = worker.handle(List.of(command("order:charge")));

        assertThat(rejected).singleElement().satisfies(r -> assertThat(r.reason()).isEqualTo(
                "the provider refused the charge: payment POST /charges answered 422: currency not supported"));
        assertThat(calls).hasValue(1);
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
            throw new ParticipantError("payment POST /charges answered 422: currency not supported", 422, "{}");
        });

        List<ConsumerLoop.Rejected> rejected = worker.handle(List.of(command("a:charge"), command("b:charge"),
                command("c:charge")));

        assertThat(rejected).hasSize(3);
    }

    @Test
    void shouldRetryWhenTheProviderRefusesForAReasonASettingCanFix() {
        worker = worker(command -> {
            throw new ParticipantError("payment POST /charges answered 401: unauthorized", 401, "{}");
        });

        assertThatThrownBy(() -> worker.handle(List.of(command("order:charge"))))
                .isInstanceOf(ParticipantError.class);
    }

    @Test
    void shouldDeadLetterAKeyNoProviderTakesWithoutCallingIt() {
        worker = worker(command -> {
            calls.incrementAndGet();
            return PaymentProvider.Charge.CAPTURED;
        });

        List<ConsumerLoop.Rejected> rejected = worker.handle(List.of(command("k".repeat(256))));

        assertThat(rejected).singleElement().satisfies(r -> assertThat(r.reason()).contains("idempotencyKey"));
        assertThat(calls).hasValue(0);
    }

    private static PaymentWorker worker(Function<ChargePayment, PaymentProvider.Charge> charge) {
        // Consumers are built but never started: no broker, and with nothing to record no database.
        return new PaymentWorker(null, "127.0.0.1:9", "unit", 1, 4, charge, () -> { }, () -> { },
                new SimpleMeterRegistry());
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
