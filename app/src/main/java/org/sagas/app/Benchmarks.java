package org.sagas.app;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;

/** {@code ./sagas bench <name>}: each benchmark prints its figures and writes bench/results/<name>.json. */
final class Benchmarks {
    private Benchmarks() {}

    static int run(List<String> args, Map<String, String> flags, Settings settings, PrintStream out) {
        if (args.isEmpty()) {
            throw new ConfigurationError("bench needs a name: throughput, relay or cascade");
        }
        switch (args.get(0)) {
            default:
                throw new ConfigurationError("unknown benchmark '" + args.get(0) + "' (throughput, relay, cascade)");
        }
    }
}
