package org.sagas.app;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.util.Map;
import org.sagas.app.fuzz.FuzzCommand;

/** {@code ./sagas fuzz}: against {@code --url}, or against a product of its own on free ports. */
final class Fuzz {
    private Fuzz() {}

    static int run(Map<String, String> flags, Settings settings, PrintStream out) {
        long seconds = Flags.positiveInt(flags, "--seconds", 60);
        long seed;
        try {
            seed = Long.parseLong(flags.getOrDefault("--seed", "16"));
        } catch (NumberFormatException e) {
            throw new ConfigurationError("--seed must be an integer (got '" + flags.get("--seed") + "')");
        }
        if (flags.containsKey("--url")) {
            URI api = URI.create(flags.get("--url"));
            if (api.getHost() == null || api.getPort() < 0) {
                throw new ConfigurationError("--url must be http://host:port (got '" + flags.get("--url") + "')");
            }
            return new FuzzCommand(api, flags.get("--api-key"), null, out).run(seconds, seed) == 0 ? 0 : 1;
        }
        out.println("starting a product of its own (embedded unless SAGA_DB_URL / SAGA_KAFKA_BOOTSTRAP are set)");
        // Product.up brings the embedded PostgreSQL and Kafka itself when no external ones are set.
        try (Product product = Product.up(settings.forOwnProduct(),
                new PrintStream(new ByteArrayOutputStream()))) {
            URI api = URI.create("http://127.0.0.1:" + product.apiPort());
            int failed = new FuzzCommand(api, null, () -> product.node().jdbi.withHandle(h -> h
                    .createQuery("SELECT count(*) FROM orders").mapTo(Long.class).one()), out).run(seconds, seed);
            return failed == 0 ? 0 : 1;
        }
    }
}
