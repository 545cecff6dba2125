/**
 * The reconciliation jobs (docs/design.md, "Reconciliation"): what fell between the orchestrator, the payment
 * provider and inventory, found by comparing the orders' events, the payment commands and replies
 * with the participants' own ledgers, and repaired when a repair is safe.
 *
 * <ul>
 *   <li>{@link org.sagas.reconciler.LedgerPuller} copies each participant's ledger, through its
 *       listing API, into a compacted topic, keeping its position in PostgreSQL.</li>
 *   <li>{@link org.sagas.reconciler.ReconcilerTopology} is the Kafka Streams topology: one state
 *       per order (its status, charge command, reply, charges and reservations), message-id dedup in
 *       a windowed store, and suspicions that become findings only after a grace period, emitted to
 *       {@code reconciliation.findings}. {@link org.sagas.reconciler.ReconcilerStreams} runs it
 *       at least once (findings are keyed and stored once) and with standby replicas.</li>
 *   <li>{@link org.sagas.reconciler.FindingSink} stores the findings in {@code reconciliation_finding}
 *       and writes the automatic repairs to the outbox in the same transaction;
 *       {@link org.sagas.reconciler.RepairWorker} carries them out with idempotency keys.</li>
 *   <li>{@link org.sagas.reconciler.FindingsReader} and {@link org.sagas.reconciler.FindingGauges}
 *       make them visible (admin API, {@code saga_reconciliation_findings{kind,state}}).</li>
 * </ul>
 */
package org.sagas.reconciler;
