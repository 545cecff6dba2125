package org.sagas.orchestrator.admin;

import java.util.UUID;

/** What became of an operator's action on one saga, with the saga as it stands now. */
sealed interface ActionResult {
    /** The audit table's word for it. */
    String outcome();

    /** Done; {@code now} is the saga after it. */
    record Applied(SagaState now) implements ActionResult {
        public String outcome() {
            return "APPLIED";
        }
    }

    /** The same action was applied before (a repeated payment outcome): nothing new. */
    record AlreadyApplied(SagaState now) implements ActionResult {
        public String outcome() {
            return "APPLIED";
        }
    }

    /** Not allowed in the saga's state. */
    record Refused(SagaState now, String why) implements ActionResult {
        public String outcome() {
            return "REFUSED";
        }
    }

    /** The saga moved between the read and the write (optimistic lock); nothing written. */
    record Conflict(SagaState now, String why) implements ActionResult {
        public String outcome() {
            return "CONFLICT";
        }
    }

    /** No such order. */
    record NotFound(UUID orderId) implements ActionResult {
        public String outcome() {
            return "NOT_FOUND";
        }
    }
}
