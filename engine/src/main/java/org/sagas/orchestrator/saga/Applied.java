package org.sagas.orchestrator.saga;

/** What a reply, a step timeout or an expiry did to a saga: its outcome, and the transition when one was written. */
record Applied<D>(SagaEngine.ReplyOutcome outcome, Transition<D> transition) {
    static <D> Applied<D> nothing(SagaEngine.ReplyOutcome outcome) {
        return new Applied<>(outcome, null);
    }

    static <D> Applied<D> moved(Transition<D> transition) {
        return new Applied<>(SagaEngine.ReplyOutcome.APPLIED, transition);
    }
}
