package org.sagas.app.check;

/**
 * A part of the product the checker must read could not be read (not reachable, refused the
 * credentials, answered something else): nothing was judged. {@code ./sagas check} exits 2 with
 * the message on one line.
 */
public final class Unreachable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unreachable(String message, Throwable cause) {
        super(message, cause);
    }

    Unreachable(String message) {
        super(message);
    }
}
