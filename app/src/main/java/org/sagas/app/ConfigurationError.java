package org.sagas.app;

/** Bad configuration: the launcher prints the message on one line and exits non-zero. */
public final class ConfigurationError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ConfigurationError(String message) {
        super(message);
    }

    public ConfigurationError(String message, Throwable cause) {
        super(message, cause);
    }
}
