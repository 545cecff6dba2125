package org.sagas.app;

import java.util.Map;

/** Reading the launcher's option values ({@code --name value}, parsed by {@link Main}). Stateless. */
public final class Flags {
    private Flags() {}

    /**
     * The positive integer {@code flags} give for {@code name}, or {@code defaultValue} when absent.
     *
     * @throws ConfigurationError naming the option when its value is not a positive integer
     */
    public static int positiveInt(Map<String, String> flags, String name, int defaultValue) {
        String v = flags.get(name);
        if (v == null) {
            return defaultValue;
        }
        try {
            int n = Integer.parseInt(v);
            if (n < 1) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new ConfigurationError(name + " must be a positive integer (got '" + v + "')");
        }
    }
}
