package org.sagas.sandbox;

/**
 * A SKU's stock: {@code available} can still be reserved, {@code reserved} is held by active
 * reservations, {@code stocked} is what the last {@code PUT /stock/{sku}} gave it (its
 * {@code available} plus what was held then), so {@code stocked - reserved = available} until
 * the next one. An unknown SKU has 0 of each.
 */
record StockLevel(String sku, long available, long reserved, long stocked) {}
