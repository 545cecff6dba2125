package org.sagas.app;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What a process of {@code ./sagas} runs (docs/architecture.md, "Roles"). Declared in the order a
 * process starts them — a dependency before what calls it: the sandbox before anything calls a
 * participant, the relay before anything writes to the outbox, the API last — and {@link
 * Product} wires each in that order.
 */
enum Role {
    SANDBOX("sandbox"),
    RELAY("relay"),
    PAYMENT_WORKER("payment-worker"),
    SAGA_WORKER("saga-worker"),
    RECONCILER("reconciler"),
    API("api");

    /** The product's own roles: all but the stand-in participants. */
    static final Set<Role> PRODUCT = EnumSet.complementOf(EnumSet.of(SANDBOX));

    private final String label;

    Role(String label) {
        this.label = label;
    }

    /** As the command line, the settings reference and the logs spell it. */
    String label() {
        return label;
    }

    /** Runs sagas on an engine of its own: checks the definition versions it has against the live ones. */
    boolean runsSagas() {
        return this == API || this == SAGA_WORKER || this == RECONCILER;
    }

    static Optional<Role> of(String label) {
        return Arrays.stream(values()).filter(r -> r.label.equals(label)).findFirst();
    }

    /** The roles {@code labels} name, or empty if any is not a role. */
    static Optional<Set<Role>> parse(List<String> labels) {
        Set<Role> roles = EnumSet.noneOf(Role.class);
        for (String label : labels) {
            Optional<Role> role = of(label);
            if (role.isEmpty()) {
                return Optional.empty();
            }
            roles.add(role.get());
        }
        return roles.isEmpty() ? Optional.empty() : Optional.of(roles);
    }

    /** The labels of {@code roles}, in start order. */
    static List<String> labels(Set<Role> roles) {
        return EnumSet.copyOf(roles).stream().map(Role::label).toList();
    }

    @Override
    public String toString() {
        return label;
    }
}
