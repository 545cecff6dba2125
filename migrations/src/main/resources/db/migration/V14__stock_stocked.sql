-- What each SKU was stocked with, so that its stock can be checked against the orders (docs/operations.md,
-- "Checking the invariants"): `stocked` = the last PUT /stock/{sku} (`available`) plus what reservations held
-- at that moment. Reserving and releasing move `available` and the held quantities by the same amount and
-- leave `stocked` alone, so `stocked - held = available` holds until the next PUT.
ALTER TABLE sandbox.stock ADD COLUMN stocked bigint NOT NULL DEFAULT 0;
UPDATE sandbox.stock s SET stocked = s.available + coalesce((SELECT sum(l.quantity) FROM sandbox.reservation_line l
    JOIN sandbox.reservation r ON r.reservation_key = l.reservation_key
    WHERE l.sku = s.sku AND r.status = 'RESERVED'), 0);
