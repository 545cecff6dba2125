package org.sagas.adapters.sandbox;

/**
 * A SKU's stock: {@code available} can still be reserved, {@code reserved} is held by active
 * reservations. An unknown SKU has 0 of both.
 */
record StockLevel(String sku, long available, long reserved) {}
