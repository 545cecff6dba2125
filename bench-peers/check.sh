#!/usr/bin/env bash
# Compiles bench-peers against the product's current modules, as run-sagas.sh builds it (one reactor,
# the product's modules from the root pom, nothing installed), without running anything: the check
# that bench-peers still builds after a change to the product. Not part of ./mvnw verify: its first run
# downloads the peers' libraries (DBOS, Flowable, Debezium) and from a clean clone it compiles the
# product as well, more than the suite can spend on a side benchmark (38 s on the project's 2-core
# machine with the product already compiled); BenchPeersReactorTest checks the poms in milliseconds.
#   bench-peers/check.sh [-o]     (-o: offline, once the dependencies are in ~/.m2)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
start=$(date +%s)
./mvnw -B -q "$@" -f bench-peers/reactor/pom.xml compile
echo "bench-peers compiles against the product's modules ($(( $(date +%s) - start )) s)"
