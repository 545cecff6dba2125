#!/usr/bin/env bash
# The orders saga on the product, DBOS Transact and Flowable, interleaved over rounds (A B C, C B A, ...)
# in one run on the embedded PostgreSQL (and Kafka, for the product): bench-peers/run-sagas.sh [resultFile]
# (default target/bench-results/saga-peers.json, outside tracked files). Settings, as environment variables:
#   PEERS_RATE=60            orders/s the open-loop client offers each contender
#   PEERS_COLD_SECONDS=10    load right after the engine's JVM started
#   PEERS_WARMED_SECONDS=20  load after that (and after the timeout probe)
#   PEERS_DECLINE_RATE=0.05  share of charges the sandbox provider declines (compensations)
#   PEERS_DEADLINE_MS=2000   X-Deadline the client sends, ahead of each order (as ./sagas bench throughput)
#   PEERS_CONTENDERS=sagas,dbos,flowable
#   PEERS_ROUNDS=2           rounds; odd ones run the contenders in the order given, even ones reversed
#   PEERS_CLOSED_SECONDS=20  closed-loop phase after the warmed one (0: none)
#   PEERS_CLOSED_CLIENTS=16  its clients, each sending its next order once the last is answered
# Every engine's JVM gets the options of ./sagas (ChildJvm.JVM_OPTIONS); no contender limits a client's rate.
# It builds the product and bench-peers in one reactor (nothing installed; the product's modules
# come from the root pom), and takes about 15 minutes with the defaults. Not part of the product's build; see bench-peers/README.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TARGET="$ROOT/bench-peers/target"
echo "building the product and bench-peers (one reactor, nothing installed)..."
./mvnw -B -q -f bench-peers/reactor/pom.xml package dependency:build-classpath \
  -DskipTests -Dmaven.test.skip=true -Dmdep.includeScope=runtime -Dmdep.outputFile=target/runtime.classpath
APP_CP="$ROOT/app/target/sagas-app.jar:$ROOT/app/target/lib/*:$ROOT/app/target/sandbox-lib/*"
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
  -Dpeers.rounds="${PEERS_ROUNDS:-2}" \
  -Dpeers.closed.seconds="${PEERS_CLOSED_SECONDS:-20}" \
  -Dpeers.closed.clients="${PEERS_CLOSED_CLIENTS:-16}" \
  -cp "$PEERS_CP" org.sagas.peers.saga.SagaPeersBenchmark "$@"
