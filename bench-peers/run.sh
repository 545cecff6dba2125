#!/usr/bin/env bash
# Runs the side-by-side benchmark (relay, Debezium embedded, transaction-outbox) on the embedded
# PostgreSQL and Kafka: bench-peers/run.sh [resultFile]. Not part of the product's build.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$HERE/.."
cd "$ROOT"
./mvnw -B -q -pl outbox-relay -am install -DskipTests
./mvnw -B -q -f bench-peers/pom.xml package -DskipTests
./mvnw -B -q -f bench-peers/pom.xml dependency:build-classpath -Dmdep.outputFile=bench-peers/target/peers.cp
# The embedded broker runs from the product's own Kafka 4.4 jars (testkit's class path).
./mvnw -B -q -pl testkit dependency:build-classpath -Dmdep.includeScope=runtime \
  -Dmdep.outputFile="$ROOT/bench-peers/target/broker.cp"
exec java -Dpeers.broker.classpath="$(cat bench-peers/target/broker.cp)" \
  -cp "bench-peers/target/classes:$(cat bench-peers/target/peers.cp)" org.sagas.peers.PeersBenchmark "$@"
