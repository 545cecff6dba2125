/**
 * The public HTTP edge: request parsing and validation, problem+json answers, and admission —
 * load shedding by priority and deadline, the cap on pending confirmations ({@link
 * org.sagas.orchestrator.http.AdmissionControl}) and the clients-first yield of background
 * consumers while submissions wait ({@link org.sagas.orchestrator.http.ForegroundFirst}).
 */
package org.sagas.orchestrator.http;
