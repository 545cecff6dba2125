package org.sagas.sandbox;

import java.util.List;

/**
 * A reservation as the inventory sandbox answers it:
 * {@code {"key","orderId","status","lines":[{"sku","quantity"}]}}. A tombstone has no lines.
 */
record Reservation(String key, String orderId, ReservationStatus status, List<Line> lines) {

    Reservation {
        lines = List.copyOf(lines);
    }

    /** One SKU of a reservation and how many of it. */
    record Line(String sku, int quantity) {}
}
