package org.sagas.reconciler;

/** A finding is open until what it found is no longer true (e.g. its refund is seen in the ledger). */
public enum FindingState { OPEN, RESOLVED }
