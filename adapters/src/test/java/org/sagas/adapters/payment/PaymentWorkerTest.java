package org.sagas.adapters.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.sagas.adapters.http.ParticipantError;
import org.sagas.adapters.messaging.ConsumerLoop;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.orchestrator.ordering.OrderMessages.ChargePayment;
import org.sagas.orchestrator.ordering.OrderMessages.RefundPayment;
import org.sagas.orchestrator.ordering.PaymentProvider;
import org.sagas.orchestrator.resilience.TransientFailure;

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

    @Test
    void shouldRefundOnlyOnceTheChargeOfTheSameBatchEnded() {
        // Given a batch with a charge still under way and the refund of the same order behind it
        CountDownLatch refundStarted = new CountDownLatch(1);
        AtomicBoolean chargeEnded = new AtomicBoolean();
        AtomicBoolean refundSawChargeEnded = new AtomicBoolean();
        worker = worker(command -> {
            try {
                // A refund run beside the charge would start during this wait.
                refundStarted.await(300, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            chargeEnded.set(true);
            throw new ParticipantError("payment POST /charges answered 422: currency not supported", 422, "{}");
        }, refund -> {
            refundStarted.countDown();
            refundSawChargeEnded.set(chargeEnded.get());
            return PaymentProvider.Charge.REFUNDED;
        });
        UUID orderId = UUID.randomUUID();

        // When the worker handles the batch
        worker.handle(List.of(command(orderId, orderId + ":charge"), refund(orderId)));

        // Then the refund ran after the charge ended
        assertThat(refundSawChargeEnded).isTrue();
    }

    @Test
    void shouldTreatARefundOfAChargeTheProviderNeverSawAsDone() {
        worker = worker(command -> PaymentProvider.Charge.CAPTURED, refund -> {
            calls.incrementAndGet();
            throw new ParticipantError("payment POST /refunds answered 404: no charge", 404, "{}");
        });

        List<ConsumerLoop.Rejected> rejected = worker.handle(List.of(refund(UUID.randomUUID())));

        assertThat(rejected).isEmpty();
        assertThat(calls).hasValue(1);
    }

    @Test
    void shouldRetryARefundWhenTheProviderFailed() {
        worker = worker(command -> PaymentProvider.Charge.CAPTURED, refund -> {
            throw new TransientFailure("payment POST /refunds answered 503");
        });

        assertThatThrownBy(() -> worker.handle(List.of(refund(UUID.randomUUID()))))
                .isInstanceOf(TransientFailure.class);
    }

    private static PaymentWorker worker(Function<ChargePayment, PaymentProvider.Charge> charge) {
        return worker(charge, refund -> {
            throw new AssertionError("no refund expected");
        });
    }

    private static PaymentWorker worker(Function<ChargePayment, PaymentProvider.Charge> charge,
            Function<RefundPayment, PaymentProvider.Charge> refund) {
        // Consumers are built but never started: no broker, and with nothing to record no database.
        return new PaymentWorker(null, "127.0.0.1:9", "unit", 1, 4, charge, refund, () -> { }, () -> { },
                new SimpleMeterRegistry());
    }

    private static ConsumerRecord<String, byte[]> refund(UUID orderId) {
        String body = "{\"orderId\":\"" + orderId + "\",\"chargeKey\":\"" + orderId + ":charge\","
                + "\"refundKey\":\"" + orderId + ":charge:refund\"}";
        return record(orderId, body, "RefundPayment");
    }

    private static ConsumerRecord<String, byte[]> command(String key) {
        return command(UUID.randomUUID(), key);
    }

    private static ConsumerRecord<String, byte[]> command(UUID orderId, String key) {
        String body = "{\"orderId\":\"" + orderId + "\",\"customerId\":\"c\",\"amountCents\":700,"
                + "\"currency\":\"EUR\",\"idempotencyKey\":\"" + key + "\"}";
        return record(orderId, body, "ChargePayment");
    }

    private static ConsumerRecord<String, byte[]> record(UUID orderId, String body, String type) {
        ConsumerRecord<String, byte[]> record = new ConsumerRecord<>(Topics.PAYMENTS_COMMANDS, 0, 0L,
                orderId.toString(), body.getBytes(StandardCharsets.UTF_8));
        record.headers().add(Topics.MESSAGE_ID, UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8));
        record.headers().add(Topics.MESSAGE_TYPE, type.getBytes(StandardCharsets.UTF_8));
        return record;
    }
}
