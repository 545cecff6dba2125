-- An Idempotency-Key belongs to the client that sent it (docs/security.md): the same key from two
-- clients is two keys, so one client can neither block another's order with a key it guessed nor
-- learn from 202 against 422 whether anyone used a key. A client is named as the edge names it for
-- quotas and logs: an API key by its short digest ('key-1a2b3c4d'), or on an open API the customer
-- ('customer:<customerId>').

-- The scope of a key written before this migration is not recorded anywhere (the keys file is not in
-- the database), but its order's customer is: those keys become the customer's. On an open API that is
-- exactly the client's scope, so they replay as before. With API keys, a key still honours its
-- customer's keys from before this migration (IdempotencyStore.KeyScope), so a retry of a submission
-- sent just before the upgrade replays it rather than placing a second order; no key writes into a
-- customer's scope, so that ends when those keys expire. A key without an order (claimed by a version
-- that named its order later, answered 409 until it expired) keeps a scope no client has.
ALTER TABLE idempotency_keys ADD COLUMN client_scope text;
UPDATE idempotency_keys k SET client_scope = 'customer:' || (s.data ->> 'customerId')
    FROM saga_instance s
    WHERE s.saga_id = k.order_id AND s.saga_type = 'order';
UPDATE idempotency_keys SET client_scope = 'unscoped' WHERE client_scope IS NULL;

-- The key is (client, Idempotency-Key). Its index leads with the Idempotency-Key: a claim and a
-- replay look up both columns, and the operators' search by Idempotency-Key alone (every client's
-- orders under it) uses the same index.
ALTER TABLE idempotency_keys
    ALTER COLUMN client_scope SET NOT NULL,
    ADD CONSTRAINT idempotency_keys_client_scope_check CHECK (length(client_scope) BETWEEN 1 AND 128),
    DROP CONSTRAINT idempotency_keys_pkey,
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (idem_key, client_scope);
