package org.sagas.orchestrator.messaging;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.sagas.orchestrator.Json;

/**
 * The message contracts of the product's topics (docs/events.md, docs/decisions/0026): one JSON
 * Schema (2020-12) per message type and version, in {@code schemas/<topic>/<type>.v<n>.schema.json}
 * beside this class, listed by {@code schemas/catalogue.json}. The consumers check each record
 * against the latest version of its type ({@link #check}), the tests hold the producers' messages
 * to them, and docs/events.md is generated from them. Every schema is compiled once, when the
 * contracts are loaded; {@link #standard()} loads the product's once per JVM.
 *
 * <p>Immutable and thread-safe. Loading throws {@link IllegalStateException} when a listed schema
 * is missing or does not compile: a build with a broken contract must not start.
 */
public final class MessageContracts {
    /** The IRI every schema's {@code $id} starts with; resolved from the classpath, never fetched. */
    public static final String BASE_IRI = "https://sagas.example/schemas/";
    private static final String ROOT = "/org/sagas/orchestrator/messaging/schemas/";

    /** One version of one message type's schema. */
    public record Contract(String topic, String type, int version, String key, boolean written) {
        /** The schema file's path under the schemas directory, as its {@code $id} ends. */
        public String path() {
            return topic + "/" + type + ".v" + version + ".schema.json";
        }

        /** {@code PlaceOrder.v1}: how a violation names the schema it broke. */
        public String name() {
            return type + ".v" + version;
        }
    }

    /** What a record is to its contract. */
    public sealed interface Verdict permits Valid, Violation, NoContract, Unreadable {}

    /** The record keeps its type's latest schema. */
    public record Valid(Contract contract) implements Verdict {}

    /**
     * The record breaks its type's latest schema: {@code errors} say where and how, one each.
     */
    public record Violation(Contract contract, List<String> errors) implements Verdict {
        public Violation {
            errors = List.copyOf(errors);
        }

        /** The reason a dead letter carries: the schema and its violations. */
        public String reason() {
            return contract.name() + ": " + String.join("; ", errors);
        }
    }

    /** No schema for this topic and type: the consumer decides (an unknown type is its own refusal). */
    public record NoContract(String topic, String type) implements Verdict {}

    /** The body is not JSON at all: the consumer's own parsing says so, with its words. */
    public record Unreadable(Contract contract) implements Verdict {}

    private static final class Standard {
        static final MessageContracts INSTANCE = load(MessageContracts::resource);
    }

    private final List<Contract> contracts;
    private final Map<String, Contract> latest;
    private final Map<Contract, Schema> schemas;
    private final Function<String, String> files;

    private MessageContracts(List<Contract> contracts, Map<Contract, Schema> schemas, Function<String, String> files) {
        this.contracts = List.copyOf(contracts);
        this.schemas = Map.copyOf(schemas);
        this.files = files;
        Map<String, Contract> last = new LinkedHashMap<>();
        for (Contract c : contracts) {
            last.merge(c.topic() + "\n" + c.type(), c, (a, b) -> a.version() >= b.version() ? a : b);
        }
        this.latest = Map.copyOf(last);
    }

    /** The product's contracts, loaded and compiled on first use. */
    public static MessageContracts standard() {
        return Standard.INSTANCE;
    }

    /**
     * Contracts whose files {@code files} gives by path under the schemas directory ({@code
     * catalogue.json}, {@code common.v1.schema.json}, {@code <topic>/<type>.v<n>.schema.json}); null
     * for a file that does not exist. Tests load fixture schemas this way.
     */
    public static MessageContracts load(Function<String, String> files) {
        JsonNode catalogue = Json.read(required(files, "catalogue.json"), JsonNode.class);
        List<Contract> contracts = new ArrayList<>();
        for (JsonNode topic : catalogue.path("topics")) {
            for (JsonNode m : topic.path("messages")) {
                for (JsonNode v : m.path("versions")) {
                    contracts.add(new Contract(topic.path("topic").asText(), m.path("type").asText(), v.asInt(),
                            m.path("key").asText(""), m.path("written").asBoolean(true)));
                }
            }
        }
        JsonNode dead = catalogue.path("deadLetter");
        for (JsonNode v : dead.path("versions")) {
            contracts.add(new Contract(DEAD_LETTER, dead.path("type").asText(), v.asInt(), "as the original's", true));
        }
        SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
                b -> b.schemas(iri -> iri.startsWith(BASE_IRI) ? files.apply(iri.substring(BASE_IRI.length())) : null)
                        .schemaRegistryConfig(SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build()));
        Map<Contract, Schema> schemas = new LinkedHashMap<>();
        for (Contract c : contracts) {
            required(files, c.path());
            try {
                Schema schema = registry.getSchema(SchemaLocation.of(BASE_IRI + c.path()));
                schema.initializeValidators();
                schemas.put(c, schema);
            } catch (RuntimeException e) {
                throw new IllegalStateException("the schema " + c.path() + " does not compile: " + e.getMessage(), e);
            }
        }
        return new MessageContracts(contracts, schemas, files);
    }

    /** The pseudo-topic of the dead-letter envelope (the headers of a record on any {@code <topic>.dlt}). */
    public static final String DEAD_LETTER = "dead-letter";

    /** Every contract, in the catalogue's order (topics, then types, then versions). */
    public List<Contract> all() {
        return contracts;
    }

    /** The latest version of {@code type} on {@code topic}, if it has a contract. */
    public Optional<Contract> latest(String topic, String type) {
        return type == null ? Optional.empty() : Optional.ofNullable(latest.get(topic + "\n" + type));
    }

    /** The previous version of {@code contract}'s type, if there is one. */
    public Optional<Contract> previous(Contract contract) {
        return contracts.stream().filter(c -> c.topic().equals(contract.topic()) && c.type().equals(contract.type())
                && c.version() < contract.version()).reduce((a, b) -> a.version() >= b.version() ? a : b);
    }

    /** The schema file of {@code contract}, as written. */
    public String text(Contract contract) {
        return required(files, contract.path());
    }

    /** A file of the schemas directory ({@code common.v1.schema.json}, a topic's prose), or empty. */
    public Optional<String> file(String path) {
        return Optional.ofNullable(files.apply(path));
    }

    /**
     * Holds a record's body to the latest schema of its message type on its topic. Costs one parse of
     * the body and one walk of the compiled schema.
     *
     * @param type the record's {@code message-type} header, null when it has none
     */
    public Verdict check(String topic, String type, byte[] body) {
        Optional<Contract> contract = latest(Topics.isDeadLetter(topic) ? topic.substring(0, topic.length() - 4) : topic,
                type);
        if (contract.isEmpty()) {
            return new NoContract(topic, type);
        }
        if (body == null) {
            return new Unreadable(contract.get());
        }
        return check(contract.get(), new String(body, StandardCharsets.UTF_8));
    }

    /** Holds the JSON text {@code json} to {@code contract}'s schema. */
    public Verdict check(Contract contract, String json) {
        List<Error> errors;
        try {
            errors = schemas.get(contract).validate(json, InputFormat.JSON);
        } catch (RuntimeException e) {
            // Not JSON: the validator's reader refused it before any schema rule ran.
            return new Unreadable(contract);
        }
        if (errors.isEmpty()) {
            return new Valid(contract);
        }
        List<String> why = new ArrayList<>(errors.size());
        for (Error e : errors) {
            why.add(e.toString());
        }
        return new Violation(contract, why);
    }

    /**
     * {@code contract}'s schema with every {@code $ref} replaced by what it names (in its own file or
     * in {@code common.v1.schema.json}): what a reader of the schema, or a comparison of two versions,
     * sees field by field.
     */
    public JsonNode resolved(Contract contract) {
        return resolve(Json.read(text(contract), JsonNode.class), contract.topic());
    }

    private JsonNode resolve(JsonNode schema, String topic) {
        if (schema.isArray()) {
            com.fasterxml.jackson.databind.node.ArrayNode copy = Json.mapper().createArrayNode();
            schema.forEach(n -> copy.add(resolve(n, topic)));
            return copy;
        }
        if (!schema.isObject()) {
            return schema;
        }
        com.fasterxml.jackson.databind.node.ObjectNode copy = Json.mapper().createObjectNode();
        if (schema.has("$ref")) {
            copy.setAll((com.fasterxml.jackson.databind.node.ObjectNode) resolve(referenced(
                    schema.get("$ref").asText(), topic), topic));
        }
        schema.fields().forEachRemaining(e -> {
            if (!e.getKey().equals("$ref")) {
                copy.set(e.getKey(), resolve(e.getValue(), topic));
            }
        });
        return copy;
    }

    private JsonNode referenced(String ref, String topic) {
        int hash = ref.indexOf('#');
        String file = hash < 0 ? ref : ref.substring(0, hash);
        String path = file.startsWith("../") ? file.substring(3) : topic + "/" + file;
        JsonNode target = Json.read(required(files, path), JsonNode.class).at(hash < 0 ? "" : ref.substring(hash + 1));
        if (target.isMissingNode()) {
            throw new IllegalStateException("the reference " + ref + " in " + topic + " does not resolve");
        }
        return target;
    }

    private static String required(Function<String, String> files, String path) {
        String text = files.apply(path);
        if (text == null) {
            throw new IllegalStateException("no message contract file " + path);
        }
        return text;
    }

    private static String resource(String path) {
        try (InputStream in = MessageContracts.class.getResourceAsStream(ROOT + path)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
