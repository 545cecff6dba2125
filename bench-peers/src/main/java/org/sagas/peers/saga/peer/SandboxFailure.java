package org.sagas.peers.saga.peer;

/** A sandbox service failed to answer or answered an error; nothing to decide on, only to retry. */
public final class SandboxFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SandboxFailure(String message) {
        super(message);
    }

    SandboxFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
