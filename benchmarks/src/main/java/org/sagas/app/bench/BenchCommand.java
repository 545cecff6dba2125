package org.sagas.app.bench;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import org.sagas.app.LauncherCommand;
import org.sagas.app.Settings;

/** {@code ./sagas bench}: the benchmarks module's command for the launcher (META-INF/services). */
public final class BenchCommand implements LauncherCommand {
    @Override
    public String name() {
        return "bench";
    }

    @Override
    public int run(List<String> args, Map<String, String> flags, Settings settings, PrintStream out) {
        return Benchmarks.run(args, flags, settings, out);
    }
}
