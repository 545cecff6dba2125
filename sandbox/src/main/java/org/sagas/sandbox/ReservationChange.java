package org.sagas.sandbox;

import java.util.List;

/**
 * A reservation as the inventory feed lists it: {@code {"key","orderId","status","lines",
 * "updatedAt","cursor"}}; a tombstone (a release that came first) has no lines.
 */
record ReservationChange(String key, String orderId, ReservationStatus status, List<Reservation.Line> lines,
        String updatedAt, String cursor) {

    ReservationChange {
        lines = List.copyOf(lines);
    }
}
