package org.sagas.app.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A CLI command line: positional words, options with values ({@code --name value} or
 * {@code --name=value}, repeatable) and flags. Unknown options are an error naming them.
 */
final class CliArgs {
    /** A command line that cannot be read; the message says why. */
    static final class Wrong extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Wrong(String message) {
            super(message, null, false, false);
        }
    }

    final List<String> positional = new ArrayList<>();
    final Map<String, List<String>> options = new LinkedHashMap<>();
    final List<String> flags = new ArrayList<>();

    static CliArgs parse(List<String> args, Set<String> valued, Set<String> flagNames) {
        CliArgs a = new CliArgs();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (!arg.startsWith("--") || arg.equals("--")) {
                a.positional.add(arg);
                continue;
            }
            String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            if (flagNames.contains(name)) {
                a.flags.add(name);
            } else if (valued.contains(name)) {
                String value;
                if (arg.contains("=")) {
                    value = arg.substring(arg.indexOf('=') + 1);
                } else if (i + 1 < args.size()) {
                    value = args.get(++i);
                } else {
                    throw new Wrong("option " + name + " needs a value");
                }
                a.options.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
            } else {
                throw new Wrong("unknown option " + name);
            }
        }
        return a;
    }

    boolean has(String flag) {
        return flags.contains(flag);
    }

    String one(String option) {
        List<String> values = options.get(option);
        if (values == null) {
            return null;
        }
        if (values.size() > 1) {
            throw new Wrong("give " + option + " once");
        }
        return values.get(0);
    }

    List<String> all(String option) {
        return options.getOrDefault(option, List.of());
    }

    String required(String option) {
        String v = one(option);
        if (v == null || v.isBlank()) {
            throw new Wrong(option + " is required");
        }
        return v;
    }
}
