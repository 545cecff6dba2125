package org.sagas.adapters.messaging;

/** A message that can never be processed (unparseable, invalid): it goes to the dead-letter topic. */
public final class PoisonMessage extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PoisonMessage(String reason) {
        super(reason);
    }
}
