package org.sagas.orchestrator.messaging;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Whether two versions of a message's schema are backward and forward compatible: a reader on
 * either accepts what a writer on the other writes. The rules (docs/decisions/0026): the required
 * fields stay the same (none added, none dropped); a declared field stays declared; every rule of a
 * field both versions declare stays exactly as it was (type, enum, range, length, pattern, format,
 * items), since narrowing it refuses old messages and widening it lets the new writer send what old
 * readers refuse; unknown fields stay allowed. What may change: new optional fields, and words
 * (title, description, examples). References are followed before comparing. Stateless.
 */
final class SchemaCompatibility {
    /** Keywords that only describe: they may change freely. */
    private static final Set<String> ANNOTATIONS = Set.of("title", "description", "examples", "$comment",
            "deprecated", "$id", "$schema", "default");
    /** Keywords compared by the walk itself rather than as values. */
    private static final Set<String> STRUCTURE = Set.of("properties", "required", "items", "$ref", "$defs");

    private final MessageContracts contracts;

    SchemaCompatibility(MessageContracts contracts) {
        this.contracts = contracts;
    }

    /** What breaks compatibility between {@code older} and {@code newer}; empty when nothing does. */
    List<String> problems(MessageContracts.Contract older, MessageContracts.Contract newer) {
        List<String> problems = new ArrayList<>();
        compare(contracts.resolved(older), contracts.resolved(newer), "$", problems);
        return problems;
    }

    private void compare(JsonNode older, JsonNode newer, String at, List<String> problems) {
        Set<String> requiredBefore = names(older.path("required"));
        Set<String> requiredAfter = names(newer.path("required"));
        for (String added : difference(requiredAfter, requiredBefore)) {
            problems.add(at + "." + added + ": newly required (a new reader refuses an old message without it)");
        }
        for (String dropped : difference(requiredBefore, requiredAfter)) {
            problems.add(at + "." + dropped + ": no longer required (an old reader refuses a new message without it)");
        }
        if (newer.path("additionalProperties").isBoolean() && !newer.path("additionalProperties").asBoolean()) {
            problems.add(at + ": refuses unknown fields");
        }
        for (String keyword : union(fieldNames(older), fieldNames(newer))) {
            if (ANNOTATIONS.contains(keyword) || STRUCTURE.contains(keyword)) {
                continue;
            }
            JsonNode before = older.get(keyword);
            JsonNode after = newer.get(keyword);
            if (before == null || after == null || !before.equals(after)) {
                problems.add(at + ": " + keyword + " changed from " + before + " to " + after);
            }
        }
        JsonNode propsBefore = older.path("properties");
        JsonNode propsAfter = newer.path("properties");
        for (Iterator<Map.Entry<String, JsonNode>> it = propsBefore.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> p = it.next();
            if (!propsAfter.has(p.getKey())) {
                problems.add(at + "." + p.getKey() + ": no longer declared (its name could come back with another"
                        + " meaning)");
            } else {
                compare(p.getValue(), propsAfter.get(p.getKey()), at + "." + p.getKey(), problems);
            }
        }
        if (older.has("items") || newer.has("items")) {
            compare(older.path("items"), newer.path("items"), at + "[]", problems);
        }
    }

    private static Set<String> names(JsonNode array) {
        Set<String> names = new TreeSet<>();
        array.forEach(n -> names.add(n.asText()));
        return names;
    }

    private static Set<String> fieldNames(JsonNode node) {
        Set<String> names = new TreeSet<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static Set<String> difference(Set<String> a, Set<String> b) {
        Set<String> d = new TreeSet<>(a);
        d.removeAll(b);
        return d;
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> u = new TreeSet<>(a);
        u.addAll(b);
        return u;
    }
}
