package org.sagas.orchestrator.config;

/** A setting's value is malformed, out of range or contradicts another; the message names it. */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }

    public ConfigException(String message) {
        super(message);
    }
}
