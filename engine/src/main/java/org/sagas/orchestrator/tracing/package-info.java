/**
 * Traces and log context (ADR 0018): the OpenTelemetry API only. {@link
 * org.sagas.orchestrator.tracing.Tracing} is the one handle the wiring passes around; it is off
 * (a no-op, nothing parsed, nothing formatted, nothing stored) unless the application installed
 * an SDK because the standard {@code OTEL_*} variables asked for one. {@link
 * org.sagas.orchestrator.tracing.Traceparent} carries a span context through places no
 * propagator reaches: an outbox row, a saga row, a Kafka header. {@link
 * org.sagas.orchestrator.tracing.LogContext} puts {@code orderId} and {@code traceId} into the
 * SLF4J MDC for one unit of work.
 */
package org.sagas.orchestrator.tracing;
