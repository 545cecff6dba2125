package org.sagas.app;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * A command of {@code ./sagas} that lives in a module the product's image leaves out (the
 * benchmarks, docs/decisions/0033): found with {@link ServiceLoader} on the class path, so the
 * launcher names none of its classes and the image runs without them. Implementations are
 * stateless and have a public no-argument constructor.
 */
public interface LauncherCommand {
    /** The word after {@code ./sagas} that runs it, e.g. {@code bench}. */
    String name();

    /**
     * Runs it.
     *
     * @param args the words after its name
     * @param flags the options {@link Main} read (name → value)
     * @return the process's exit code
     */
    int run(List<String> args, Map<String, String> flags, Settings settings, PrintStream out);

    /** The command named {@code name} on this class path, if its module is here. */
    static Optional<LauncherCommand> find(String name) {
        return ServiceLoader.load(LauncherCommand.class, LauncherCommand.class.getClassLoader()).stream()
                .map(ServiceLoader.Provider::get).filter(c -> c.name().equals(name)).findFirst();
    }
}
