#!/usr/bin/env bash
# Runs the side-by-side benchmark (relay, Debezium embedded, transaction-outbox) on the embedded
# PostgreSQL and Kafka: bench-peers/run.sh [resultFile] (default target/bench-results/relay-peers.json, outside tracked files).
# PEERS_DRAIN_ROWS=2000 makes a short trial run. Not part of the product's build.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TARGET="$ROOT/bench-peers/target"
./mvnw -B -q -pl relay-bench -am install -DskipTests
./mvnw -B -q -f bench-peers/pom.xml package -DskipTests
./mvnw -B -q -f bench-peers/pom.xml dependency:build-classpath -Dmdep.outputFile="$TARGET/peers.cp"
# The embedded broker runs from the product's own Kafka 4.4 jars (testkit's class path).
./mvnw -B -q -pl testkit dependency:build-classpath -Dmdep.includeScope=runtime -Dmdep.outputFile="$TARGET/broker.cp"
PEERS_CP="$(cat "$TARGET/peers.cp")"
BROKER_CP="$(cat "$TARGET/broker.cp")"
exec java -Dpeers.drain.rows="${PEERS_DRAIN_ROWS:-}" -Dpeers.broker.classpath="$BROKER_CP" -cp "$TARGET/classes:$PEERS_CP" org.sagas.peers.PeersBenchmark "$@"
