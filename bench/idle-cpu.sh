#!/usr/bin/env bash
# CPU of an idle `./sagas up`: the product's JVM, its broker JVM and every PostgreSQL process,
# read from /proc (utime + stime ticks) over a window, in cores; the two JVMs also per thread.
# See docs/benchmarks.md ("Idle").
#
#   bench/idle-cpu.sh --data-dir DIR [--seconds 90] [--top 15] [--rounds 1]
#
# DIR is the --data-dir the product was started with (`./sagas up --data-dir DIR`); the JVM is
# the process holding DIR/postgres/postgres.owner's owner (found by its command line), the broker
# the child JVM running kafka.Kafka with DIR/kafka, PostgreSQL the postmaster of
# DIR/postgres/data and its children. Measure once warm-up is done (some 30-60 s after
# "sagas is up").
set -euo pipefail
DIR="" SECONDS_WINDOW=90 TOP=15 ROUNDS=1
while [ $# -gt 0 ]; do
  case "$1" in
    --data-dir) DIR="$2"; shift 2 ;;
    --seconds) SECONDS_WINDOW="$2"; shift 2 ;;
    --top) TOP="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    *) echo "usage: $0 --data-dir DIR [--seconds N] [--top N] [--rounds N]" >&2; exit 2 ;;
  esac
done
[ -n "$DIR" ] || { echo "--data-dir is required" >&2; exit 2; }
DIR="$(cd "$DIR" && pwd)"
HZ="$(getconf CLK_TCK)"

# The product's JVM: org.sagas.app.Main up ... --data-dir DIR
find_jvm() {
  local p
  for p in /proc/[0-9]*; do
    local cmd
    cmd="$( (tr '\0' ' ' <"$p/cmdline") 2>/dev/null || true)"
    case "$cmd" in
      *org.sagas.app.Main\ up*"$DIR"*) echo "${p#/proc/}"; return ;;
    esac
  done
}
JVM="$(find_jvm)"
[ -n "$JVM" ] || { echo "no ./sagas up JVM with data dir $DIR" >&2; exit 1; }
BROKER=""
for p in /proc/[0-9]*; do
  cmd="$( (tr '\0' ' ' <"$p/cmdline") 2>/dev/null || true)"
  case "$cmd" in *kafka.Kafka*"$DIR/kafka"*) BROKER="${p#/proc/}" ;; esac
done
PGMASTER="$(head -1 "$DIR/postgres/data/postmaster.pid")"

pg_pids() {
  echo "$PGMASTER"
  pgrep -P "$PGMASTER" || true
}

# ticks of one process (all its threads, live ones; dead threads' ticks are in the process total)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# per-thread ticks: "<tid> <ticks> <name>"; with a second argument, the Java thread's full name
# where jcmd can tell it (the kernel's comm is cut at 15 characters). jcmd runs after /proc is
# read, and only at the window's end, so its own cost falls outside the window.
thread_ticks() {
  local pid="$1" withnames="${2:-}" raw names t
  raw="$(mktemp)"; names="$(mktemp)"
  for t in /proc/"$pid"/task/*; do
    local s
    s="$(cat "$t/stat" 2>/dev/null)" || continue
    # the name is in (...) and may hold spaces: cut after the last ')'
    local rest="${s##*) }"
    set -- $rest
    echo "${t##*/} $(( ${12} + ${13} )) $(tr ' ' '_' <"$t/comm" 2>/dev/null)"
  done >"$raw"
  if [ -n "$withnames" ] && command -v jcmd >/dev/null 2>&1; then
    jcmd "$pid" Thread.print 2>/dev/null | sed -n 's/^"\([^"]*\)".* nid=\(0x[0-9a-f]*\) .*/\2 \1/p' |
      while read -r nid name; do echo "$((nid)) ${name// /_}"; done >"$names" || true
  fi
  awk 'FILENAME == ARGV[1] { n[$1]=$2; next } { print $1, $2, ($1 in n ? n[$1] : $3) }' "$names" "$raw"
  rm -f "$raw" "$names"
}

snapshot() { # -> file: "kind pid ticks"
  echo "jvm $JVM $(ticks "$JVM")"
  [ -n "$BROKER" ] && echo "broker $BROKER $(ticks "$BROKER")"
  local p
  for p in $(pgrep -P "$JVM"); do
    [ "$p" = "$BROKER" ] || echo "child $p $(ticks "$p")"
  done
  for p in $(pg_pids); do
    echo "pg $p $(ticks "$p") $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-60 | tr ' ' '_')"
  done
}

round() {
  local a b ta tb tb2 ta2
  a="$(mktemp)"; b="$(mktemp)"; ta="$(mktemp)"; tb="$(mktemp)"; ta2="$(mktemp)"; tb2="$(mktemp)"
  snapshot >"$a"; thread_ticks "$JVM" >"$ta"; [ -n "$BROKER" ] && thread_ticks "$BROKER" >"$ta2"
  local t0; t0="$(date +%s.%N)"
  sleep "$SECONDS_WINDOW"
  local t1; t1="$(date +%s.%N)"
  snapshot >"$b"; thread_ticks "$JVM" names >"$tb"; [ -n "$BROKER" ] && thread_ticks "$BROKER" names >"$tb2"

  local secs; secs="$(echo "$t1 - $t0" | bc -l)"
  # processes: a postgres backend that ended during the window is lost (counted 0), one that
  # started counts from 0
  awk -v hz="$HZ" -v s="$secs" '
    NR==FNR { a[$1" "$2]=$3; next }
    { d = $3 - (($1" "$2) in a ? a[$1" "$2] : 0); k[$1] += d; tot += d
      if ($1 == "pg" && d > 0) pgd[$2" "$4] = d }
    END {
      printf "window %.1f s, CLK_TCK %d\n", s, hz
      printf "  %-8s %7s %8s\n", "process", "ticks", "cores"
      for (x in k) printf "  %-8s %7d %8.4f\n", x, k[x], k[x]/hz/s
      printf "  %-8s %7d %8.4f\n", "TOTAL", tot, tot/hz/s
      for (x in pgd) printf "    pg %-70s %5d\n", x, pgd[x]
    }' "$a" "$b"
  for pair in "jvm $ta $tb" "broker $ta2 $tb2"; do
    set -- $pair
    [ -s "$3" ] || continue
    echo "  $1 threads (ticks over the window, top $TOP; names with digits as #):"
    awk 'NR==FNR { a[$1]=$2; next } { d = $2 - ($1 in a ? a[$1] : 0); n=$3; gsub(/[0-9a-f]+-[0-9a-f]+-[0-9a-f]+-[0-9a-f]+-[0-9a-f]+/, "<id>", n); gsub(/[0-9]+/, "#", n); g[n] += d; c[n]++ }
         END { for (x in g) if (g[x] > 0) printf "%7d  %s (x%d)\n", g[x], x, c[x] }' "$2" "$3" | sort -rn | head -"$TOP"
  done
  awk -v hz="$HZ" -v s="$secs" 'NR==FNR { a[$1" "$2]=$3; next } { tot += $3 - (($1" "$2) in a ? a[$1" "$2] : 0) }
       END { printf "CORES %.4f\n", tot/hz/s }' "$a" "$b"
  rm -f "$a" "$b" "$ta" "$tb" "$ta2" "$tb2"
}

echo "jvm $JVM, broker ${BROKER:-none}, postmaster $PGMASTER ($(pg_pids | wc -l) postgres processes)"
for i in $(seq 1 "$ROUNDS"); do
  echo "--- round $i"
  round
done
