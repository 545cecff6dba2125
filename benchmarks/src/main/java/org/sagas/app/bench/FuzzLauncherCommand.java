package org.sagas.app.bench;

import java.io.PrintStream;
import java.net.URI;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.sagas.app.ConfigurationError;
import org.sagas.app.Flags;
import org.sagas.app.LauncherCommand;
import org.sagas.app.Settings;
import org.sagas.app.fuzz.FuzzCommand;

/**
 * {@code ./sagas fuzz}: against {@code --url}, or against a product of its own, started as the
 * benchmarks start theirs (its own PostgreSQL and broker, the product and the sandbox each in a
 * process of their own). Found by the launcher on the class path (META-INF/services); the product's
 * image leaves it out with the rest of this module (docs/decisions/0033).
 */
public final class FuzzLauncherCommand implements LauncherCommand {
    @Override
    public String name() {
        return "fuzz";
    }

    @Override
    public int run(List<String> args, Map<String, String> flags, Settings settings, PrintStream out) {
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
        try (BenchRig rig = BenchRig.start(settings.forOwnProduct(), out)) {
            rig.startProduct(Map.of());
            int failed = new FuzzCommand(rig.ordersUri().resolve("/"), null, () -> storedOrders(rig), out)
                    .run(seconds, seed);
            return failed == 0 ? 0 : 1;
        } catch (ConfigurationError e) {
            throw e;
        } catch (Exception e) {
            out.println("fuzz failed: " + e);
            return 1;
        }
    }

    private static long storedOrders(BenchRig rig) {
        try (Statement s = rig.productDb().createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM orders")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot count the product's orders: " + e.getMessage(), e);
        }
    }
}
