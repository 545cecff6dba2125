package org.sagas.orchestrator.lifecycle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.SQLException;
import java.util.concurrent.TimeoutException;

/**
 * What kind of failure a component's last run ended in, as {@code GET /health/components} shows
 * it to anyone who asks: a code decided on the exception's type (its causes included), never its
 * text, which can carry hosts, SQL or data. The text goes to the log with the stack trace.
 */
public enum FailureCause {
    /** A database call failed ({@link SQLException} somewhere in the chain). */
    DATABASE,
    /** Input/output failed: a socket, a file, an HTTP exchange. */
    IO,
    /** Something took longer than it was allowed. */
    TIMEOUT,
    /** The run was interrupted (usually: the process is stopping). */
    INTERRUPTED,
    /** Anything else: a bug or a failure without a type of its own. */
    UNEXPECTED;

    /** The code for {@code error}: the first cause, outermost first, of a type with a code of its own. */
    public static FailureCause of(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException) {
                return DATABASE;
            }
            if (t instanceof TimeoutException) {
                return TIMEOUT;
            }
            if (t instanceof IOException || t instanceof UncheckedIOException) {
                return IO;
            }
            if (t instanceof InterruptedException) {
                return INTERRUPTED;
            }
        }
        return UNEXPECTED;
    }
}
