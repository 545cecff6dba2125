#!/usr/bin/env bash
# CPU per participant call of the JDK's HttpClient against Jetty's, each alone in a client process
# calling a fixed JSON answer (Target, a process of its own) on loopback, paced at 20 and at 100
# calls/s, interleaved jdk jetty jetty jdk jdk jetty at each rate, 30 s windows. Uses the Jetty
# client of the product's class path (app/target/lib: run ./sagas --help once to build it).
# See docs/benchmarks.md ("Levers measured for the cost per order").
#
#   bench/http-client-cost/run.sh [SECONDS]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LIB="$HERE/../../app/target/lib"
ls "$LIB"/jetty-client-*.jar >/dev/null 2>&1 || { echo "no Jetty client in $LIB: run ./sagas --help first" >&2; exit 2; }
# Jetty's client and SLF4J's API alone: with no logging backend on the class path, Jetty logs nothing
# (the product's logback would log it at DEBUG, and the measure with it).
CP="$(ls "$LIB"/jetty-*.jar "$LIB"/slf4j-api-*.jar | tr '\n' ':')"
OUT="$(mktemp -d)"
trap 'kill "$T" 2>/dev/null || true; rm -rf "$OUT"' EXIT
javac -d "$OUT" -cp "$CP" "$HERE/ClientCost.java" "$HERE/Target.java"
OPTS="-Xms256m -Xmx2g -XX:+UseG1GC -XX:TieredStopAtLevel=1 -XX:-UsePerfData"
java $OPTS -cp "$OUT" Target 18099 & T=$!
sleep 1
for rate in 20 100; do
  for m in jdk jetty jetty jdk jdk jetty; do
    java $OPTS -cp "$OUT:$CP" ClientCost "$m" "$rate" "${1:-30}" http://127.0.0.1:18099/reservations 2>/dev/null
  done
done
