package org.sagas.app;

import java.util.List;
import org.sagas.orchestrator.admin.OutboxDeadLetterPort;
import org.sagas.relay.OutboxDeadLetters;

/** The relay's dead-lettered outbox rows, as the operator API sees them. Thread-safe. */
final class RelayDeadLetters implements OutboxDeadLetterPort {
    private final OutboxDeadLetters deadLetters;

    RelayDeadLetters(OutboxDeadLetters deadLetters) {
        this.deadLetters = deadLetters;
    }

    @Override
    public long count() {
        return deadLetters.count();
    }

    @Override
    public List<?> list(int limit) {
        return deadLetters.list(limit);
    }

    @Override
    public boolean replay(long id) {
        return deadLetters.replay(id);
    }

    @Override
    public boolean discard(long id) {
        return deadLetters.discard(id);
    }
}
