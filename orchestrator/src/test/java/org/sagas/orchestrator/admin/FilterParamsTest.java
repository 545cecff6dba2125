package org.sagas.orchestrator.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.http.InvalidRequest;
import org.sagas.orchestrator.ordering.OrderFilter;
import org.sagas.orchestrator.ordering.OrderStatus;

class FilterParamsTest {

    @Test
    void shouldReadEveryFilterFromTheQuery() {
        OrderFilter f = FilterParams.fromQuery(Map.of(
                "status", List.of("PENDING_CONFIRMATION", "payment_unknown,AWAITING_PAYMENT"),
                "customerId", List.of("c-1"), "idempotencyKey", List.of("k-1"), "step", List.of("reserve_stock"),
                "parkedOn", List.of("inventory"), "incident", List.of("any"), "stuckForSeconds", List.of("120"),
                "createdFrom", List.of("2026-11-29T10:00:00Z"), "createdTo", List.of("2026-11-29T12:00:00+01:00"),
                "limit", List.of("5")), Set.of("limit"));

        assertThat(f.statuses()).containsExactlyInAnyOrder(OrderStatus.PENDING_CONFIRMATION,
                OrderStatus.PAYMENT_UNKNOWN, OrderStatus.AWAITING_PAYMENT);
        assertThat(f.customerId()).isEqualTo("c-1");
        assertThat(f.idempotencyKey()).isEqualTo("k-1");
        assertThat(f.step()).isEqualTo("RESERVE_STOCK");
        assertThat(f.parkedOn()).isEqualTo("inventory");
        assertThat(f.incident()).isEqualTo(OrderFilter.ANY_INCIDENT);
        assertThat(f.stuckFor()).isEqualTo(Duration.ofMinutes(2));
        assertThat(f.createdFrom()).isEqualTo(Instant.parse("2026-11-29T10:00:00Z"));
        assertThat(f.createdTo()).isEqualTo(Instant.parse("2026-11-29T11:00:00Z"));
    }

    @Test
    void shouldReadABatchFilterFromJsonWithTheSameNames() throws Exception {
        OrderFilter f = FilterParams.fromJson(Json.mapper().readTree(
                "{\"status\":[\"PENDING_CONFIRMATION\"],\"incident\":\"PAYMENT_UNRESOLVED\",\"stuckForSeconds\":30}"));

        assertThat(f.statuses()).containsExactly(OrderStatus.PENDING_CONFIRMATION);
        assertThat(f.incident()).isEqualTo("PAYMENT_UNRESOLVED");
        assertThat(FilterParams.toJson(f)).containsEntry("stuckForSeconds", 30L);
        assertThat(FilterParams.isEmpty(OrderFilter.all())).isTrue();
    }

    @Test
    void shouldNameTheParameterThatIsWrong() {
        assertThatThrownBy(() -> FilterParams.fromQuery(Map.of("statuses", List.of("X")), Set.of()))
                .isInstanceOf(InvalidRequest.class).extracting("field").isEqualTo("statuses");
        assertThatThrownBy(() -> FilterParams.fromQuery(Map.of("status", List.of("SHIPPED")), Set.of()))
                .isInstanceOf(InvalidRequest.class).hasMessageContaining("SHIPPED");
        assertThatThrownBy(() -> FilterParams.fromQuery(Map.of("stuckForSeconds", List.of("-1")), Set.of()))
                .isInstanceOf(InvalidRequest.class).extracting("field").isEqualTo("stuckForSeconds");
        assertThatThrownBy(() -> FilterParams.fromQuery(Map.of("createdFrom", List.of("yesterday")), Set.of()))
                .isInstanceOf(InvalidRequest.class).extracting("field").isEqualTo("createdFrom");
        assertThatThrownBy(() -> FilterParams.fromQuery(Map.of("parkedOn", List.of("In Ventory")), Set.of()))
                .isInstanceOf(InvalidRequest.class).extracting("field").isEqualTo("parkedOn");
    }
}
