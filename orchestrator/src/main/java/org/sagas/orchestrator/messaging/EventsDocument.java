package org.sagas.orchestrator.messaging;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.messaging.MessageContracts.Contract;

/**
 * docs/events.md, generated from the message contracts ({@code ./sagas events docs}): the header's
 * prose, then per topic its prose and, for the latest version of each message type, its key, its
 * fields with their rules and its first example, then the dead-letter headers and the footer. A test
 * fails when the file in the repository differs from this. Stateless.
 */
public final class EventsDocument {
    private static final String SCHEMAS = "orchestrator/src/main/resources/org/sagas/orchestrator/messaging/schemas/";

    private EventsDocument() {}

    /** The whole document for {@code contracts}. */
    public static String generate(MessageContracts contracts) {
        StringBuilder doc = new StringBuilder();
        doc.append(contracts.file("header.md").orElse(""));
        Set<String> topics = new LinkedHashSet<>();
        contracts.all().forEach(c -> topics.add(c.topic()));
        for (String topic : topics) {
            boolean deadLetter = topic.equals(MessageContracts.DEAD_LETTER);
            doc.append("## ").append(deadLetter ? "Dead letters: `<topic>.dlt`" : "`" + topic + "`").append("\n\n");
            contracts.file(topic + "/topic.md").ifPresent(prose -> doc.append(prose).append('\n'));
            Set<String> types = new LinkedHashSet<>();
            contracts.all().stream().filter(c -> c.topic().equals(topic)).forEach(c -> types.add(c.type()));
            for (String type : types) {
                message(doc, contracts, contracts.latest(topic, type).orElseThrow(), deadLetter);
            }
        }
        contracts.file("footer.md").ifPresent(doc::append);
        return doc.toString().replaceAll("\n{3,}", "\n\n").stripTrailing() + "\n";
    }

    private static void message(StringBuilder doc, MessageContracts contracts, Contract c, boolean deadLetter) {
        JsonNode schema = contracts.resolved(c);
        doc.append("### ").append(deadLetter ? "Headers of a dead letter" : "`" + c.type() + "`")
                .append(" (v").append(c.version()).append(")\n\n");
        doc.append("**").append(schema.path("title").asText()).append(".** ")
                .append(schema.path("description").asText()).append("\n\n");
        if (!deadLetter) {
            doc.append("`message-type: ").append(c.type()).append("`, key = ").append(c.key())
                    .append(c.written() ? "" : "; no longer written, still read").append(". ");
        }
        doc.append("Schema: [`").append(c.path()).append("`](../").append(SCHEMAS).append(c.path()).append(").\n\n");
        doc.append("| ").append(deadLetter ? "header" : "field").append(" | type | required | rules |\n");
        doc.append("|---|---|---|---|\n");
        fields(doc, schema, "");
        JsonNode example = schema.path("examples").path(0);
        if (!example.isMissingNode()) {
            doc.append("\nExample").append(deadLetter ? " (the added headers, and the original's)" : "")
                    .append(":\n\n```json\n").append(pretty(example)).append("\n```\n\n");
        }
    }

    /** One row per field, nested objects' and array items' fields after their parent's row. */
    private static void fields(StringBuilder doc, JsonNode schema, String prefix) {
        Set<String> required = new LinkedHashSet<>();
        schema.path("required").forEach(r -> required.add(r.asText()));
        for (Iterator<Map.Entry<String, JsonNode>> it = schema.path("properties").fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> field = it.next();
            JsonNode f = field.getValue();
            String name = prefix + field.getKey();
            doc.append("| `").append(name).append("` | ").append(type(f)).append(" | ")
                    .append(required.contains(field.getKey()) ? "yes" : "no").append(" | ")
                    .append(rules(f)).append(" |\n");
            if (f.has("properties")) {
                fields(doc, f, name + ".");
            } else if (f.path("items").has("properties")) {
                fields(doc, f.get("items"), name + "[].");
            }
        }
    }

    private static String type(JsonNode f) {
        if (f.has("oneOf")) {
            List<String> types = new ArrayList<>();
            f.get("oneOf").forEach(o -> types.add(type(o)));
            return String.join(" or ", types);
        }
        JsonNode type = f.path("type");
        String base;
        if (type.isArray()) {
            List<String> types = new ArrayList<>();
            type.forEach(t -> types.add(t.asText()));
            base = String.join(" or ", types);
        } else {
            base = type.asText("any");
        }
        if (base.equals("array") && f.path("items").has("type")) {
            base = "array of " + type(f.get("items"));
        }
        return f.has("format") ? base + " (" + f.get("format").asText() + ")" : base;
    }

    private static String rules(JsonNode f) {
        List<String> rules = new ArrayList<>();
        if (f.has("enum")) {
            List<String> values = new ArrayList<>();
            f.get("enum").forEach(v -> values.add("`" + v.asText() + "`"));
            rules.add("one of " + String.join(", ", values));
        }
        range(rules, f, "minimum", "maximum", "");
        range(rules, f, "minLength", "maxLength", " characters");
        range(rules, f, "minItems", "maxItems", " items");
        if (f.has("pattern")) {
            rules.add("matches `" + f.get("pattern").asText().replace("|", "\\|") + "`");
        }
        if (f.has("oneOf")) {
            f.get("oneOf").forEach(o -> {
                String inner = rules(o);
                if (!inner.isEmpty() && !rules.contains(inner)) {
                    rules.add(inner);
                }
            });
        }
        String description = f.path("description").asText("");
        String text = String.join("; ", rules);
        if (!description.isEmpty()) {
            text = description.replace("|", "\\|") + (text.isEmpty() ? "" : " (" + text + ")");
        }
        return text;
    }

    private static void range(List<String> rules, JsonNode f, String min, String max, String unit) {
        if (f.has(min) && f.has(max)) {
            rules.add(f.get(min).asText() + " to " + f.get(max).asText() + unit);
        } else if (f.has(min)) {
            rules.add(min.equals("minLength") && f.get(min).asInt() == 1 ? "not empty"
                    : "at least " + f.get(min).asText() + unit);
        } else if (f.has(max)) {
            rules.add("at most " + f.get(max).asText() + unit);
        }
    }

    private static String pretty(JsonNode node) {
        DefaultPrettyPrinter printer = new DefaultPrettyPrinter()
                .withObjectIndenter(new DefaultIndenter("  ", "\n"));
        try {
            return Json.mapper().writer(printer).writeValueAsString(node);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot write an example", e);
        }
    }
}
