package org.sagas.orchestrator.http;

import io.javalin.http.Context;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.sagas.orchestrator.ordering.OrderService;

/**
 * Who may do what on the public API. With {@link ApiKeys} every order request must carry
 * {@code Authorization: Bearer <key>} and acts only for that key's customers; without them the
 * API is open and anyone acts for any customer. {@code X-Priority} is honoured only for keys
 * marked {@code priority}, or, on an open API, for the customer ids configured as allowed it.
 * Immutable and thread-safe.
 */
public final class ClientAccess {
    private static final String BEARER = "bearer ";

    private final ApiKeys keys;
    private final Set<String> priorityCustomers;

    private ClientAccess(ApiKeys keys, Set<String> priorityCustomers) {
        this.keys = keys;
        this.priorityCustomers = Set.copyOf(priorityCustomers);
    }

    /** Every order request needs one of {@code keys}. */
    public static ClientAccess withKeys(ApiKeys keys) {
        return new ClientAccess(keys, Set.of());
    }

    /** No authentication; {@code priorityCustomers} may set {@code X-Priority}. */
    public static ClientAccess open(Set<String> priorityCustomers) {
        return new ClientAccess(null, priorityCustomers);
    }

    public boolean isOpen() {
        return keys == null;
    }

    /**
     * The key's client, or empty on an open API.
     *
     * @throws ApiRefusal {@code 401} when keys are required and the request has none, or an unknown one
     */
    Optional<ApiKeys.Client> authenticate(Context ctx) {
        if (keys == null) {
            return Optional.empty();
        }
        String header = ctx.header("Authorization");
        if (header == null || header.isBlank()) {
            throw ApiRefusal.unauthenticated("send 'Authorization: Bearer <API key>'");
        }
        if (header.length() <= BEARER.length() || !header.substring(0, BEARER.length()).toLowerCase(Locale.ROOT)
                .equals(BEARER)) {
            throw ApiRefusal.unauthenticated("the Authorization header must be 'Bearer <API key>'");
        }
        return Optional.of(keys.authenticate(header.substring(BEARER.length()).strip())
                .orElseThrow(() -> ApiRefusal.unauthenticated("unknown API key")));
    }

    /**
     * Who an order for {@code customerId} comes from: what it counts against for quotas, and whose
     * {@code Idempotency-Key} it carries.
     */
    static String clientName(Optional<ApiKeys.Client> client, String customerId) {
        return client.map(ApiKeys.Client::name).orElse(OrderService.customerClient(customerId));
    }

    /** The customers whose pending orders count as this client's share. */
    static Set<String> customers(Optional<ApiKeys.Client> client, String customerId) {
        return client.map(ApiKeys.Client::customers).orElse(Set.of(customerId));
    }

    /** Whether this client's {@code X-Priority} is honoured. */
    boolean mayPrioritise(Optional<ApiKeys.Client> client, String customerId) {
        return client.map(ApiKeys.Client::priority).orElse(keys == null && priorityCustomers.contains(customerId));
    }

    /**
     * @throws ApiRefusal {@code 403} when the key may not act for {@code customerId}
     */
    static void requireCustomer(Optional<ApiKeys.Client> client, String customerId) {
        if (client.isPresent() && !client.get().customers().contains(customerId)) {
            throw ApiRefusal.forbidden("this API key may not place orders for customer " + customerId);
        }
    }
}
