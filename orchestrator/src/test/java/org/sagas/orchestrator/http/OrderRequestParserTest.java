package org.sagas.orchestrator.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.ordering.OrderRequest;

class OrderRequestParserTest {
    private static final String LINE = "{\"sku\":\"SKU-1\",\"quantity\":2,\"unitPriceCents\":1250}";

    @Test
    void shouldParseTheContractExample() {
        OrderRequest r = parse("{\"customerId\":\"c-1\",\"currency\":\"EUR\",\"lines\":[" + LINE + "]}");

        assertThat(r.customerId()).isEqualTo("c-1");
        assertThat(r.currency()).isEqualTo("EUR");
        assertThat(r.lines()).singleElement().satisfies(l -> {
            assertThat(l.sku()).isEqualTo("SKU-1");
            assertThat(l.quantity()).isEqualTo(2);
            assertThat(l.unitPriceCents()).isEqualTo(1250);
        });
        assertThat(r.totalCents()).isEqualTo(2500);
    }

    @Test
    void shouldHashEqualRequestsEquallyWhateverTheirLayout() {
        OrderRequest a = parse("{\"customerId\":\"c-1\",\"currency\":\"EUR\",\"lines\":[" + LINE + "]}");
        OrderRequest b = parse("{ \"lines\" : [" + LINE + "], \"currency\":\"EUR\", \"customerId\":\"c-1\" }");
        OrderRequest c = parse("{\"customerId\":\"c-2\",\"currency\":\"EUR\",\"lines\":[" + LINE + "]}");

        assertThat(a.hash()).isEqualTo(b.hash()).isNotEqualTo(c.hash());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "{\"customerId\":\"\",\"currency\":\"EUR\",\"lines\":[LINE]}|customerId",
        "{\"customerId\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\",\"currency\":\"EUR\",\"lines\":[LINE]}|customerId",
        "{\"customerId\":\"a\\u0007b\",\"currency\":\"EUR\",\"lines\":[LINE]}|customerId",
        "{\"customerId\":\"   \",\"currency\":\"EUR\",\"lines\":[LINE]}|customerId",
        "{\"customerId\":7,\"currency\":\"EUR\",\"lines\":[LINE]}|customerId",
        "{\"currency\":\"EUR\",\"lines\":[LINE]}|customerId",
        "{\"customerId\":\"c\",\"currency\":\"eur\",\"lines\":[LINE]}|currency",
        "{\"customerId\":\"c\",\"currency\":\"EURO\",\"lines\":[LINE]}|currency",
        "{\"customerId\":\"c\",\"currency\":null,\"lines\":[LINE]}|currency",
        "{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[]}|lines",
        "{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":{}}|lines",
        "{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"\",\"quantity\":1,\"unitPriceCents\":1}]}|lines[0].sku",
        "{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"s\",\"quantity\":0,\"unitPriceCents\":1}]}|lines[0].quantity",
        "{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"s\",\"quantity\":10001,\"unitPriceCents\":1}]}|lines[0].quantity",
        "{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"s\",\"quantity\":\"2\",\"unitPriceCents\":1}]}|lines[0].quantity",
        "{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"s\",\"quantity\":1.5,\"unitPriceCents\":1}]}|lines[0].quantity",
        "{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"s\",\"quantity\":1,\"unitPriceCents\":-1}]}|lines[0].unitPriceCents",
        "{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"s\",\"quantity\":1,\"unitPriceCents\":1000000001}]}|lines[0].unitPriceCents",
        "{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"s\",\"quantity\":1,\"unitPriceCents\":1,\"x\":1}]}|lines[0].x",
        "{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[LINE],\"extra\":true}|extra",
        "{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[LINE]|body",
        "[1,2]|body",
        "{\"customerId\":\"c\",\"customerId\":\"d\",\"currency\":\"EUR\",\"lines\":[LINE]}|body",
    })
    void shouldNameTheFieldThatIsWrong(String json, String field) {
        assertThatThrownBy(() -> parse(json.replace("LINE", LINE)))
                .isInstanceOfSatisfying(InvalidRequest.class, e -> assertThat(e.field()).isEqualTo(field));
    }

    @Test
    void shouldAcceptOneHundredLinesAndRefuseOneHundredAndOne() {
        assertThat(parse(order(100)).lines()).hasSize(100);
        assertThatThrownBy(() -> parse(order(101)))
                .isInstanceOfSatisfying(InvalidRequest.class, e -> assertThat(e.field()).isEqualTo("lines"));
    }

    @Test
    void shouldAcceptTheLimitsThemselves() {
        OrderRequest r = parse("{\"customerId\":\"" + "x".repeat(64) + "\",\"currency\":\"EUR\",\"lines\":["
                + "{\"sku\":\"" + "s".repeat(64) + "\",\"quantity\":10000,\"unitPriceCents\":1000000000},"
                + "{\"sku\":\"free\",\"quantity\":1,\"unitPriceCents\":0}]}");

        assertThat(r.totalCents()).isEqualTo(10_000L * 1_000_000_000L);
    }

    @Test
    void shouldCountASkuInCodePointsAsThePostgresColumnAndTheParticipantsDo() {
        String astral = "\uD835\uDC9C".repeat(64); // 64 code points (a letter outside the BMP), 128 UTF-16 units

        OrderRequest r = parse("{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"" + astral
                + "\",\"quantity\":1,\"unitPriceCents\":1}]}");

        assertThat(r.lines().get(0).sku()).isEqualTo(astral);
        assertThatThrownBy(() -> parse("{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"" + astral
                + "x\",\"quantity\":1,\"unitPriceCents\":1}]}"))
                .isInstanceOfSatisfying(InvalidRequest.class, e -> assertThat(e.field()).isEqualTo("lines[0].sku"));
    }

    private static String order(int lines) {
        return "{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[" + String.join(",", java.util.Collections.nCopies(lines, LINE)) + "]}";
    }

    private static OrderRequest parse(String json) {
        return OrderRequestParser.parse(json.getBytes(StandardCharsets.UTF_8));
    }
}
