#!/usr/bin/env sh
# Creates the secret files docker-compose.yml mounts (Docker secrets), each a random password,
# leaving existing ones alone: PostgreSQL keeps the password it was initialised with.
set -eu
cd "$(dirname "$0")"
umask 077
mkdir -p secrets
chmod 700 secrets
for name in db_password grafana_admin_password; do
  if [ ! -s "secrets/$name" ]; then
    # 24 random bytes, base64: no quoting trouble in any client.
    head -c 24 /dev/urandom | base64 | tr -d '\n' > "secrets/$name"
    echo "created ops/secrets/$name"
  fi
  # Readable by the containers' own users (postgres, sagas 10001, grafana), which are not the
  # file's owner; the directory (700) keeps the host's other users out.
  chmod 644 "secrets/$name"
done
