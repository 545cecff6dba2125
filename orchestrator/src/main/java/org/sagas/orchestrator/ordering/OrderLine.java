package org.sagas.orchestrator.ordering;

/** One line of an order: how many of a SKU at what unit price (in cents of the order's currency). */
public record OrderLine(String sku, int quantity, long unitPriceCents) {
    public long totalCents() {
        return quantity * unitPriceCents;
    }
}
