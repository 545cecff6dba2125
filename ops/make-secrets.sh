#!/usr/bin/env sh
# Creates the secret files docker-compose.yml mounts (Docker secrets), each a random password,
# leaving existing ones alone: PostgreSQL keeps the passwords it was initialised with. One per
# PostgreSQL role (ops/postgres/init-roles.sql): the superuser, the schema owner, each product
# role and the sandbox; the Grafana admin; the sandbox ledgers' token.
set -eu
cd "$(dirname "$0")"
umask 077
mkdir -p secrets
chmod 700 secrets
for name in kafka_admin_password kafka_api kafka_saga_worker kafka_relay kafka_payment_worker \
  kafka_reconciler kafka_sandbox db_superuser_password db_owner_password db_api_password db_saga_worker_password \
    db_relay_password db_payment_worker_password db_reconciler_password db_sandbox_password \
    grafana_admin_password sandbox_ledger_token; do
  if [ ! -s "secrets/$name" ]; then
    # 24 random bytes, base64: no quoting trouble in any client.
    head -c 24 /dev/urandom | base64 | tr -d '\n' > "secrets/$name"
    echo "created ops/secrets/$name"
  fi
  # Readable by the containers' own users (postgres, sagas 10001, grafana), which are not the
  # file's owner; the directory (700) keeps the host's other users out.
  chmod 644 "secrets/$name"
done
# One API key for a first customer; add a line per client ('key customerId[,customerId…] [priority]').
if [ ! -s secrets/api_keys ]; then
  echo "$(head -c 24 /dev/urandom | base64 | tr -d '\n/+=') c-1" > secrets/api_keys
  echo "created ops/secrets/api_keys (one key for customer c-1)"
fi
chmod 644 secrets/api_keys
