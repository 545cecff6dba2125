#!/usr/bin/env bash
# The machine's low-rate penalty, with no product at all: PostgreSQL's own pgbench transaction
# (TPC-B-like: five statements and a commit, synchronous_commit=on) on one connection, paced at
# 20 and at 100 transactions/s, interleaved three times; the CPU per transaction of the server's
# backend and of the pgbench client, read from /proc. See docs/benchmarks.md ("How much of the
# 1.5 the machine itself takes").
#
#   bench/pg-rate-reference.sh [PG_BIN_DIR]   (default /usr/lib/postgresql/15/bin; needs pgbench,
#                                              and root, which runs the server as user postgres)
set -euo pipefail
BIN="${1:-/usr/lib/postgresql/15/bin}"
[ -x "$BIN/pgbench" ] || { echo "no pgbench in $BIN" >&2; exit 2; }
id postgres >/dev/null 2>&1 || { echo "needs a user postgres to run the server" >&2; exit 2; }
D="$(mktemp -d /tmp/pg-rate-reference.XXXXXX)"
chown postgres "$D"
PORT=55432
as_pg() { su postgres -s /bin/bash -c "$*"; }
trap 'as_pg "$BIN/pg_ctl -D $D/data stop -m fast" >/dev/null 2>&1 || true; rm -rf "$D"' EXIT
as_pg "$BIN/initdb -D $D/data -A trust" >/dev/null
as_pg "$BIN/pg_ctl -D $D/data -o '-p $PORT -k $D -c synchronous_commit=on -c shared_buffers=256MB' -l $D/log start" >/dev/null
sleep 2
as_pg "$BIN/pgbench -h $D -p $PORT -i -s 1 postgres" >/dev/null 2>&1
HZ=$(getconf CLK_TCK)
ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
commits() { as_pg "$BIN/psql -h $D -p $PORT -tAc \"select xact_commit from pg_stat_database where datname='postgres'\" postgres"; }
for R in 20 100 20 100 20 100; do
  T=$((R == 20 ? 60 : 30))
  as_pg "$BIN/pgbench -h $D -p $PORT -c 1 -j 1 -R $R -T $T -n postgres" >/dev/null 2>&1 &
  sleep 2
  CL=$(pgrep -n -x pgbench)
  BE=$(pgrep -n -f "postgres: postgres postgres")
  c0=$(ticks "$CL"); b0=$(ticks "$BE"); t0=$(date +%s.%N); n0=$(commits)
  sleep $((T - 6))
  c1=$(ticks "$CL"); b1=$(ticks "$BE"); t1=$(date +%s.%N); n1=$(commits)
  wait
  tx=$((n1 - n0 - 1)) # less the first reading's own transaction
  awk -v r="$R" -v tx="$tx" -v t0="$t0" -v t1="$t1" -v b="$((b1 - b0))" -v c="$((c1 - c0))" -v hz="$HZ" \
    'BEGIN { printf "rate %d/s: %d transactions in %.1f s; backend %.3f ms, client %.3f ms of CPU per transaction\n", r, tx, t1 - t0, b * 1000 / hz / tx, c * 1000 / hz / tx }'
done
