#!/usr/bin/env bash
# The orders saga on the product, DBOS Transact and Flowable, one after the other in one run on the
# embedded PostgreSQL (and Kafka, for the product): bench-peers/run-sagas.sh [resultFile]
# (default bench/results/saga-peers.json). Settings, as environment variables:
#   PEERS_RATE=60            orders/s the open-loop client offers each contender
#   PEERS_COLD_SECONDS=10    load right after the engine's JVM started
#   PEERS_WARMED_SECONDS=20  load after that (and after the timeout probe)
#   PEERS_DECLINE_RATE=0.05  share of charges the sandbox provider declines (compensations)
#   PEERS_DEADLINE_MS=2000   X-Deadline the client sends, ahead of each order (as ./sagas bench throughput)
#   PEERS_CONTENDERS=sagas,dbos,flowable
# It builds the product and bench-peers in one reactor (nothing installed), and takes about
# 4 minutes with the defaults. Not part of the product's build; see bench-peers/README.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TARGET="$ROOT/bench-peers/target"
echo "building the product and bench-peers (one reactor, nothing installed)..."
./mvnw -B -q -f bench-peers/reactor/pom.xml package dependency:build-classpath \
  -DskipTests -Dmaven.test.skip=true -Dmdep.includeScope=runtime -Dmdep.outputFile=target/runtime.classpath
APP_CP="$ROOT/app/target/sagas-app.jar:$ROOT/app/target/lib/*"
PEERS_CP="$TARGET/classes:$(cat "$TARGET/runtime.classpath")"
exec java -Xms256m -Xmx1g -XX:+UseG1GC -Duser.timezone=UTC \
  -Dlogback.configurationFile=saga-peers-logback.xml \
  -Dpeers.app.classpath="$APP_CP" \
  -Dpeers.logs="$TARGET/saga-logs" \
  -Dpeers.rate="${PEERS_RATE:-60}" \
  -Dpeers.cold.seconds="${PEERS_COLD_SECONDS:-10}" \
  -Dpeers.warmed.seconds="${PEERS_WARMED_SECONDS:-20}" \
  -Dpeers.decline.rate="${PEERS_DECLINE_RATE:-0.05}" \
  -Dpeers.deadline.ms="${PEERS_DEADLINE_MS:-2000}" \
  -Dpeers.contenders="${PEERS_CONTENDERS:-sagas,dbos,flowable}" \
  -cp "$PEERS_CP" org.sagas.peers.saga.SagaPeersBenchmark "$@"
