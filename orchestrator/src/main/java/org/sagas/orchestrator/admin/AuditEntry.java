package org.sagas.orchestrator.admin;

import java.time.Instant;
import java.util.UUID;

/**
 * One row of the audit table: who asked for what, on what, why, when, and what became of it.
 *
 * @param detail JSON: the saga as it stood after (or the conflict's current state), or the error
 * @param batchId the batch the action was part of, or null
 */
public record AuditEntry(long id, Instant at, String actor, String role, String action, String target, String reason,
        String outcome, String detail, UUID batchId) {}
