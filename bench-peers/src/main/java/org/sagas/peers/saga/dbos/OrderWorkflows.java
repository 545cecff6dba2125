package org.sagas.peers.saga.dbos;

import org.sagas.peers.saga.peer.OrderRequest;

/** The orders saga as a DBOS workflow; DBOS wraps an implementation in a durable proxy. */
public interface OrderWorkflows {
    /**
     * The saga: reserve, request the charge, wait for its outcome by message, confirm or compensate.
     * Answers the final state.
     */
    String order(OrderRequest order);
}
