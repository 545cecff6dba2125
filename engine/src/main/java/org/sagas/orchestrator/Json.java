package org.sagas.orchestrator;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/** The product's Jackson configurations: one for what it writes and reads itself, one strict for outside input. Thread-safe. */
public final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /**
     * For input from outside (requests, participants' bodies): duplicate keys, trailing tokens,
     * hostile nesting and thousand-digit numbers fail while being read, before any tree is built —
     * far above what a valid order needs (depth 3, prices of 10 digits), far below what would cost.
     */
    private static final ObjectMapper STRICT = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(16).maxNumberLength(32)
                    .maxStringLength(64 * 1024).build()).build())
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private Json() {}

    /** The strict reader for untrusted input (see above). */
    public static ObjectMapper strict() {
        return STRICT;
    }

    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** Serialises {@code value}; a value Jackson cannot write is a bug. */
    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise " + value.getClass().getName(), e);
        }
    }

    public static <T> T read(String json, Class<T> type) {
        try {
            return MAPPER.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot read " + type.getSimpleName() + ": " + e.getOriginalMessage(), e);
        }
    }
}
