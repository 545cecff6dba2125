package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.orchestrator.ordering.OrderKeys;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * Traces through the outbox (ADR 0018): one trace from {@code POST /orders} to
 * the confirmation across the relay, Kafka, the payment worker and the provider; a parked order
 * resumed later in a new trace linked to the first; nothing stored while tracing is off. The
 * product gets an SDK with an in-memory exporter through its wiring (never the global instance).
 */
@RealInfrastructure
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TracesIT {
    private static final Duration SETTLE = Duration.ofSeconds(60);
    private static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();
    private static OpenTelemetrySdk sdk;
    private static TestProduct product;
    private static String bootstrap;

    @BeforeAll
    static void start(TestInfra infra) {
        product = TestProduct.shared(infra);
        bootstrap = infra.bootstrapServers();
        sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(SPANS))
                        .build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
                .build();
    }

    @AfterEach
    void heal() {
        product.healthy();
    }

    @AfterAll
    static void untraced() {
        if (product != null) {
            product.tracing(null);
            product.healthy();
        }
        if (sdk != null) {
            sdk.close();
        }
    }

    @Test
    @Order(1)
    void shouldStoreNoTraceWhenTracingIsOff() {
        // Given the product as it runs by default: no OTEL_* variables, no SDK
        product.tracing(null);
        String sku = "trace-off-" + UUID.randomUUID();
        product.stock(sku, 5);

        // When an order arrives with a caller's traceparent and is confirmed
        UUID id = TestProduct.orderId(product.submit("trace-off-" + UUID.randomUUID(),
                TestProduct.order("c-trace", sku, 1, 700), "traceparent", traceparent(newTraceId())));
        product.awaitStatus(id, "CONFIRMED", SETTLE);

        // Then nothing of it was stored or sent: no traceparent on the saga, the records, the provider's call
        assertThat(storedTraceparent(id)).isNull();
        assertThat(traceparentHeaders(Topics.ORDERS_EVENTS, id.toString(), 2)).hasSizeGreaterThanOrEqualTo(2)
                .allMatch(String::isEmpty);
        assertThat(product.get(product.payments("/_traceparents/" + OrderKeys.charge(id))).path("status").asInt())
                .isEqualTo(404);
    }

    @Test
    @Order(2)
    void shouldFollowOneTraceFromTheRequestToTheConfirmationAcrossKafkaAndThePaymentWorker() {
        // Given a traced product and a caller that started a trace
        product.tracing(Telemetry.with(sdk));
        String sku = "trace-on-" + UUID.randomUUID();
        product.stock(sku, 5);
        String traceId = newTraceId();

        // When it submits an order with its traceparent
        HttpResponse<String> response = product.submit("trace-on-" + UUID.randomUUID(),
                TestProduct.order("c-trace", sku, 1, 900), "traceparent", traceparent(traceId));
        assertThat(response.statusCode()).isEqualTo(202);
        UUID id = TestProduct.orderId(response);
        product.awaitStatus(id, "CONFIRMED", SETTLE);

        // Then every hop is a span of the caller's trace: the API, inventory, the worker, the provider, the reply
        await("the reply's span").atMost(Duration.ofSeconds(10)).until(() -> spansOf(traceId).stream()
                .anyMatch(TracesIT::isReply));
        List<SpanData> trace = spansOf(traceId);
        assertThat(trace).anySatisfy(s -> {
            assertThat(s.getKind()).isEqualTo(SpanKind.SERVER);
            assertThat(s.getName()).isEqualTo("POST /orders");
            assertThat(s.getParentSpanContext().isRemote()).isTrue();
        });
        assertThat(trace).anySatisfy(s -> {
            assertThat(s.getKind()).isEqualTo(SpanKind.CLIENT);
            assertThat(s.getName()).isEqualTo("inventory POST /reservations");
        });
        assertThat(trace).anySatisfy(s -> {
            assertThat(s.getKind()).isEqualTo(SpanKind.CONSUMER);
            assertThat(s.getName()).startsWith(Topics.PAYMENTS_COMMANDS);
            assertThat(s.getParentSpanContext().isRemote()).as("continued from the Kafka header").isTrue();
        });
        assertThat(trace).anySatisfy(s -> {
            assertThat(s.getKind()).isEqualTo(SpanKind.CLIENT);
            assertThat(s.getName()).isEqualTo("payment POST /charges");
        });
        assertThat(trace).anySatisfy(s -> {
            assertThat(isReply(s)).as("the reply applied to the saga: %s", s.getName()).isTrue();
            assertThat(s.getAttributes().get(AttributeKey.stringKey("saga.status"))).isEqualTo("CONFIRMED");
        });
        // ... the provider received it, the saga keeps it, and the confirmation's events carry it
        assertThat(product.get(product.payments("/_traceparents/" + OrderKeys.charge(id))).path("traceparent")
                .asText()).contains(traceId);
        assertThat(storedTraceparent(id)).contains(traceId);
        assertThat(traceparentHeaders(Topics.ORDERS_EVENTS, id.toString(), 2)).hasSizeGreaterThanOrEqualTo(2)
                .allMatch(h -> h.contains(traceId));
    }

    @Test
    @Order(3)
    void shouldResumeAParkedOrderInANewTraceLinkedToTheFirst() {
        // Given a traced product, stock, and an inventory that is down
        product.tracing(Telemetry.with(sdk));
        String sku = "trace-park-" + UUID.randomUUID();
        product.stock(sku, 5);
        product.inventoryFaults(GameDay.INVENTORY_DOWN);
        String traceId = newTraceId();

        // When an order is parked as pending, and inventory comes back
        HttpResponse<String> response = product.submit("trace-park-" + UUID.randomUUID(),
                TestProduct.order("c-trace", sku, 1, 900), "traceparent", traceparent(traceId));
        assertThat(TestProduct.read(response.body()).path("status").asText()).isEqualTo("PENDING_CONFIRMATION");
        UUID id = TestProduct.orderId(response);
        product.healthy();
        product.awaitStatus(id, "CONFIRMED", SETTLE);

        // Then the resume ran in a trace of its own, linked to the request's
        await("the resume's span").atMost(Duration.ofSeconds(10)).until(() -> resumeOf(id) != null);
        SpanData resume = resumeOf(id);
        assertThat(resume.getTraceId()).isNotEqualTo(traceId);
        assertThat(resume.getParentSpanContext().isValid()).as("a new trace: a root span").isFalse();
        assertThat(resume.getLinks()).extracting(LinkData::getSpanContext)
                .anySatisfy(linked -> assertThat(linked.getTraceId()).isEqualTo(traceId));
        // ... and that trace went on to the provider and back to the confirmation
        String resumed = resume.getTraceId();
        assertThat(product.get(product.payments("/_traceparents/" + OrderKeys.charge(id))).path("traceparent")
                .asText()).contains(resumed);
        await("the confirmation in the resumed trace").atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(spansOf(resumed)).anySatisfy(s -> {
                    assertThat(isReply(s)).as(s.getName()).isTrue();
                    assertThat(s.getAttributes().get(AttributeKey.stringKey("saga.status"))).isEqualTo("CONFIRMED");
                }));
        assertThat(storedTraceparent(id)).as("the saga keeps its first trace").contains(traceId);
    }

    /**
     * The span a payment outcome is applied to its saga in: the reply consumer's (the payment worker
     * in another process, the reply through Kafka) or, with both in one process as here, the span the
     * worker hands it to the engine in (ADR 0019).
     */
    private static boolean isReply(SpanData s) {
        return s.getKind() == SpanKind.CONSUMER && s.getName().startsWith(Topics.PAYMENTS_EVENTS)
                || s.getKind() == SpanKind.INTERNAL && s.getName().startsWith("payment reply");
    }

    private static List<SpanData> spansOf(String traceId) {
        return SPANS.getFinishedSpanItems().stream().filter(s -> s.getTraceId().equals(traceId)).toList();
    }

    private static SpanData resumeOf(UUID orderId) {
        return SPANS.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("saga order resume")
                        && orderId.toString().equals(s.getAttributes().get(AttributeKey.stringKey("saga.id"))))
                .findFirst().orElse(null);
    }

    private static String storedTraceparent(UUID orderId) {
        return product.product().node().jdbi.withHandle(h -> h.createQuery(
                "SELECT traceparent FROM saga_instance WHERE saga_id = :id").bind("id", orderId)
                .mapTo(String.class).findOne().orElse(null));
    }

    /** The {@code traceparent} header of each record under {@code key} ("" for none), read until {@code expected}. */
    private static List<String> traceparentHeaders(String topic, String key, int expected) {
        return TopicReader.headersFor(bootstrap, topic, key, "traceparent", expected, Duration.ofSeconds(20));
    }

    private static String newTraceId() {
        byte[] bytes = new byte[16];
        ThreadLocalRandom.current().nextBytes(bytes);
        bytes[0] |= 1; // never all zeros
        return HexFormat.of().formatHex(bytes);
    }

    private static String traceparent(String traceId) {
        byte[] span = new byte[8];
        ThreadLocalRandom.current().nextBytes(span);
        span[0] |= 1;
        return "00-" + traceId + "-" + HexFormat.of().formatHex(span) + "-01";
    }
}
