package org.sagas.app.check;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.sagas.orchestrator.Json;

/**
 * The participants' own books, over their HTTP APIs (docs/events.md, "The participants' ledgers";
 * docs/participants.md): the payment provider's charges, the inventory's reservations and a SKU's
 * stock. The listings need the ledger token (docs/security.md, "The sandboxes").
 */
final class Ledgers {
    /** One charge at the provider. */
    record Charge(String key, String orderId, String status) {
        boolean captured() {
            return "CAPTURED".equals(status);
        }
    }

    /** One reservation at the inventory and what it asked for. */
    record Reservation(String key, String orderId, String status, List<Line> lines) {
        boolean held() {
            return "RESERVED".equals(status);
        }
    }

    record Line(String sku, long quantity) {}

    /** A SKU's stock; {@code stocked} is empty when the inventory does not say (not the sandbox). */
    record Stock(String sku, long available, long reserved, OptionalLong stocked) {}

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI inventory;
    private final URI payments;
    private final String token;

    Ledgers(Target target) {
        this.inventory = target.inventory();
        this.payments = target.payments();
        this.token = target.ledgerToken();
    }

    List<Charge> charges() {
        List<Charge> charges = new ArrayList<>();
        for (JsonNode c : get(payments, "/charges", "the payment provider")) {
            charges.add(new Charge(c.path("idempotencyKey").asText(), c.path("orderId").asText(),
                    c.path("status").asText()));
        }
        return charges;
    }

    List<Reservation> reservations() {
        List<Reservation> reservations = new ArrayList<>();
        for (JsonNode r : get(inventory, "/reservations", "the inventory")) {
            List<Line> lines = new ArrayList<>();
            r.path("lines").forEach(l -> lines.add(new Line(l.path("sku").asText(), l.path("quantity").asLong())));
            reservations.add(new Reservation(r.path("key").asText(), r.path("orderId").asText(),
                    r.path("status").asText(), lines));
        }
        return reservations;
    }

    Stock stock(String sku) {
        JsonNode s = get(inventory, "/stock/" + URLEncoder.encode(sku, StandardCharsets.UTF_8).replace("+", "%20"),
                "the inventory");
        return new Stock(sku, s.path("available").asLong(), s.path("reserved").asLong(),
                s.hasNonNull("stocked") ? OptionalLong.of(s.get("stocked").asLong()) : OptionalLong.empty());
    }

    private JsonNode get(URI base, String path, String who) {
        URI uri = URI.create(base.toString().replaceFirst("/+$", "") + path);
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(TIMEOUT).header("Authorization", "Bearer " + token)
                .header("Accept", "application/json").GET().build();
        HttpResponse<String> answer;
        try {
            answer = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new Unreachable("cannot reach " + who + " at " + base + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unreachable("interrupted while reading " + uri, e);
        }
        if (answer.statusCode() == 401 || answer.statusCode() == 403) {
            throw new Unreachable(who + " refused the ledger token (" + answer.statusCode() + " on GET " + path
                    + "): set SAGA_SANDBOX_LEDGER_TOKEN or SAGA_SANDBOX_LEDGER_TOKEN_FILE to the one it runs with");
        }
        if (answer.statusCode() != 200) {
            throw new Unreachable(who + " answered " + answer.statusCode() + " to GET " + uri);
        }
        try {
            return Json.mapper().readTree(answer.body());
        } catch (IOException e) {
            throw new Unreachable(who + " answered GET " + uri + " with something that is not JSON", e);
        }
    }
}
