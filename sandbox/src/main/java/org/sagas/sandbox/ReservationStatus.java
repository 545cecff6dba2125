package org.sagas.sandbox;

/** What a reservation key stands for now. Stored as text, with a CHECK constraint. */
enum ReservationStatus {
    /** Every line's stock is held. */
    RESERVED,
    /** Nothing held: released, or a tombstone for a release that came before its reservation. */
    RELEASED,
    /** Nothing held: some line lacked stock when the reservation arrived. */
    OUT_OF_STOCK
}
