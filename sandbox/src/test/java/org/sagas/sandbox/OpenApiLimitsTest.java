package org.sagas.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.ordering.Limits;

/**
 * The public OpenAPI documents (the orders API's and the sandboxes') state the bounds and patterns
 * that {@link Limits} enforces: a document that drifts from the code's one home fails here.
 */
class OpenApiLimitsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void shouldStateTheOrderRulesOfLimitsWhenTheOrdersApiDocumentIsRead() throws IOException {
        JsonNode api = document("org/sagas/orchestrator/http/openapi.json");
        JsonNode schemas = api.at("/components/schemas");

        assertThat(text(schemas, "/OrderRequest/properties/currency/pattern")).isEqualTo(Limits.CURRENCY_PATTERN);
        assertBounds(schemas.at("/OrderRequest/properties/lines"), "minItems", 1, "maxItems", Limits.MAX_LINES);
        assertBounds(schemas.at("/OrderLine/properties/quantity"), "minimum", Limits.MIN_QUANTITY, "maximum",
                Limits.MAX_QUANTITY);
        assertBounds(schemas.at("/OrderLine/properties/unitPriceCents"), "minimum", Limits.MIN_UNIT_PRICE_CENTS,
                "maximum", Limits.MAX_UNIT_PRICE_CENTS);
        // customerId and sku share one Identifier schema, so their limits must be one number
        assertThat(Limits.MAX_SKU).isEqualTo(Limits.MAX_CUSTOMER_ID);
        assertBounds(schemas.at("/Identifier"), "minLength", 1, "maxLength", Limits.MAX_SKU);
        JsonNode key = api.at("/components/parameters/IdempotencyKey/schema");
        assertBounds(key, "minLength", 1, "maxLength", Limits.MAX_KEY);
        assertThat(text(key, "/pattern")).isEqualTo(Limits.API_KEY_PATTERN);
    }

    @Test
    void shouldStateTheOrderRulesOfLimitsWhenThePaymentSandboxDocumentIsRead() throws IOException {
        JsonNode charge = document("org/sagas/sandbox/openapi-payment.json")
                .at("/paths/~1charges/post/requestBody/content/application~1json/schema/properties");

        assertThat(text(charge, "/currency/pattern")).isEqualTo(Limits.CURRENCY_PATTERN);
        assertBounds(charge.at("/orderId"), "minLength", 1, "maxLength", Limits.MAX_ORDER_ID);
        assertKeyBounds(document("org/sagas/sandbox/openapi-payment.json"));
    }

    @Test
    void shouldStateTheOrderRulesOfLimitsWhenTheInventorySandboxDocumentIsRead() throws IOException {
        JsonNode inventory = document("org/sagas/sandbox/openapi-inventory.json");
        JsonNode reserve = inventory.at("/paths/~1reservations/post/requestBody/content/application~1json/schema");

        assertBounds(reserve.at("/properties/orderId"), "minLength", 1, "maxLength", Limits.MAX_ORDER_ID);
        assertBounds(reserve.at("/properties/lines"), "minItems", 1, "maxItems", Limits.MAX_LINES);
        assertBounds(inventory.at("/components/schemas/Line/properties/sku"), "minLength", 1, "maxLength",
                Limits.MAX_SKU);
        assertBounds(inventory.at("/components/schemas/Line/properties/quantity"), "minimum", Limits.MIN_QUANTITY,
                "maximum", Limits.MAX_QUANTITY);
        assertBounds(inventory.at("/components/parameters/Sku/schema"), "minLength", 1, "maxLength", Limits.MAX_SKU);
        assertBounds(inventory.at("/components/parameters/ReservationKey/schema"), "minLength", 1, "maxLength",
                Limits.MAX_KEY);
        assertKeyBounds(inventory);
    }

    @Test
    void shouldStateTheOrderRulesOfLimitsWhenTheFraudSandboxDocumentIsRead() throws IOException {
        JsonNode fraud = document("org/sagas/sandbox/openapi-fraud.json");
        JsonNode screening = fraud.at("/components/schemas/ScreeningRequest/properties");

        assertBounds(screening.at("/orderId"), "minLength", 1, "maxLength", Limits.MAX_ORDER_ID);
        assertBounds(screening.at("/customerId"), "minLength", 1, "maxLength", Limits.MAX_CUSTOMER_ID);
        assertKeyBounds(fraud);
    }

    private static void assertKeyBounds(JsonNode document) {
        assertBounds(document.at("/components/parameters/IdempotencyKey/schema"), "minLength", 1, "maxLength",
                Limits.MAX_KEY);
    }

    private static void assertBounds(JsonNode schema, String lowName, long low, String highName, long high) {
        assertThat(schema.isMissingNode()).as("schema present").isFalse();
        assertThat(schema.path(lowName).isIntegralNumber()).as(lowName + " stated in " + schema).isTrue();
        assertThat(schema.path(highName).isIntegralNumber()).as(highName + " stated in " + schema).isTrue();
        assertThat(schema.get(lowName).asLong()).as(lowName + " of " + schema).isEqualTo(low);
        assertThat(schema.get(highName).asLong()).as(highName + " of " + schema).isEqualTo(high);
    }

    private static String text(JsonNode node, String pointer) {
        JsonNode value = node.at(pointer);
        assertThat(value.isTextual()).as(pointer + " stated").isTrue();
        return value.asText();
    }

    private static JsonNode document(String resource) throws IOException {
        try (InputStream in = OpenApiLimitsTest.class.getClassLoader().getResourceAsStream(resource)) {
            assertThat(in).as(resource + " on the class path").isNotNull();
            return JSON.readTree(in);
        }
    }
}
