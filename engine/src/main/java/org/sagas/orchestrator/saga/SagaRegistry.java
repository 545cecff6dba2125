package org.sagas.orchestrator.saga;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.Comparator;

/**
 * The definitions an engine knows, by {@link SagaVersion}, and the version each type starts new
 * instances on (docs/decisions/0025-versioned-saga-definitions.md): the one chosen with {@link
 * #startingOn}, else the lowest registered. Every version of a type reads and writes the same data
 * class, so an instance's data stays readable whichever version it runs. Immutable: each change
 * returns a new registry; thread-safe.
 */
public final class SagaRegistry {
    private static final Comparator<SagaVersion> ORDER = Comparator.comparing(SagaVersion::type)
            .thenComparingInt(SagaVersion::version);

    private final Map<SagaVersion, SagaDefinition<?>> definitions;
    private final Map<String, Integer> starting;

    private SagaRegistry(Map<SagaVersion, SagaDefinition<?>> definitions, Map<String, Integer> starting) {
        this.definitions = definitions;
        this.starting = starting;
    }

    public static SagaRegistry empty() {
        return new SagaRegistry(Map.of(), Map.of());
    }

    /**
     * This registry and {@code definition}.
     *
     * @throws IllegalArgumentException when its (type, version) is registered already, or another
     *     version of its type has another data class
     */
    public SagaRegistry with(SagaDefinition<?> definition) {
        SagaVersion key = SagaVersion.of(definition);
        if (definitions.containsKey(key)) {
            throw new IllegalArgumentException("saga " + key + " is registered already");
        }
        definitions.values().stream().filter(d -> d.type().equals(definition.type())
                && d.dataType() != definition.dataType()).findAny().ifPresent(other -> {
                    throw new IllegalArgumentException("saga " + key + " reads " + definition.dataType().getName()
                            + " but " + SagaVersion.of(other) + " reads " + other.dataType().getName());
                });
        Map<SagaVersion, SagaDefinition<?>> more = new java.util.HashMap<>(definitions);
        more.put(key, definition);
        return new SagaRegistry(Map.copyOf(more), starting);
    }

    /**
     * This registry, starting new instances of {@code type} on {@code version}.
     *
     * @throws IllegalArgumentException when that version is not registered
     */
    public SagaRegistry startingOn(String type, int version) {
        SagaVersion key = new SagaVersion(type, version);
        if (!definitions.containsKey(key)) {
            throw new IllegalArgumentException("cannot start sagas on " + key + ": the versions known are "
                    + known());
        }
        Map<String, Integer> chosen = new java.util.HashMap<>(starting);
        chosen.put(type, version);
        return new SagaRegistry(definitions, Map.copyOf(chosen));
    }

    /** The definition of {@code version}, if this registry has it. */
    public Optional<SagaDefinition<?>> find(SagaVersion version) {
        return Optional.ofNullable(definitions.get(version));
    }

    /**
     * The definition new instances of {@code type} start on.
     *
     * @throws SagaException when no version of {@code type} is registered
     */
    public SagaDefinition<?> starting(String type) {
        Integer chosen = starting.get(type);
        if (chosen != null) {
            return definitions.get(new SagaVersion(type, chosen));
        }
        return definitions.keySet().stream().filter(k -> k.type().equals(type)).min(ORDER)
                .map(definitions::get)
                .orElseThrow(() -> new SagaException("no saga definition registered for type " + type));
    }

    /** Every (type, version) registered, by type then version. */
    public Set<SagaVersion> known() {
        Set<SagaVersion> all = new TreeSet<>(ORDER);
        all.addAll(definitions.keySet());
        return java.util.Collections.unmodifiableSet(all);
    }
}
