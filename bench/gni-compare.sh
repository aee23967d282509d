#!/usr/bin/env bash
# Issue 15's benchmark: gni vs shm, same run. Prints the load average, JMH's tagged ping-pong (64 B round trip,
# 1 MiB ping-pong bandwidth, gc.alloc.rate.norm = B/op with -prof gc) for both providers in one JVM, then
# `jfabric pingpong` across two processes for both (gni with jfabric.gni.wire=shm on both sides), and the ratios
# the issue asks for (gni RTT <= 1.5x shm, gni bandwidth >= 0.8x shm). Rerun it on a quiet machine.
#
# Usage: bench/gni-compare.sh [ITERATIONS] [BIG_ITERATIONS]
#   ITERATIONS      64 B round trips of the two-process runs (default 100000)
#   BIG_ITERATIONS  1 MiB round trips of the two-process runs (default 1000)
# Needs: a built tree (mvn -q -DskipTests package), python3.
set -euo pipefail
root=$(cd -P "$(dirname "$0")/.." && pwd -P)
n=${1:-100000}
big=${2:-1000}
jf="$root/jfabric"
[ -f "$root/cli/target/jfabric.jar" ] && [ -f "$root/bench/target/benchmarks.jar" ] ||
  { echo "build first: mvn -q -DskipTests package" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
fig() { python3 -c 'import json,sys; d=json.load(sys.stdin); r=d["rtt_ns"]; print(r["p50"], int(r["mean"]), d["mb_per_sec"])'; }
two_process() {  # provider size iterations
  local port; port=$(free_port)
  export JFABRIC_JAVA_OPTS="-Djfabric.gni.wire=shm -Djfabric.gni.directory=$work/gni"
  "$jf" pingpong --server -p "$1" -B "$port" --idle yield --timeout 120 >/dev/null 2>&1 &
  local srv=$!
  sleep 2
  "$jf" pingpong -p "$1" -P "$port" -S "$2" -I "$3" --warmup $(( $3 / 4 )) --idle yield --timeout 120 --json \
    127.0.0.1 | fig
  wait "$srv" || true
}

echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(java -version 2>&1 | head -1)"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
java -jar "$root/bench/target/benchmarks.jar" GniVsShmPingPongBenchmark -f 1 -wi 3 -w 2 -i 5 -r 2 -prof gc \
  -rf json -rff "$work/jmh.json" | grep -E '^(Benchmark|GniVsShm)' | grep -E 'roundTrip( |:gc.alloc.rate.norm)'
python3 - "$work/jmh.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
t = {}
for r in rows:
    p = r["params"]
    t[(p["provider"], int(p["size"]))] = (r["primaryMetric"]["score"],
        r["secondaryMetrics"].get("gc.alloc.rate.norm", {}).get("score", float("nan")))
for prov in ("gni", "shm"):
    rtt, a64 = t[(prov, 64)]
    big, abig = t[(prov, 1048576)]
    print(f"jmh {prov}: 64 B rtt {rtt:.0f} ns ({a64:.3f} B/op), 1 MiB ping-pong {2 * 1048576 / big * 1e3:.0f} MB/s "
          f"({abig:.3f} B/op)")
print(f"ratio jmh rtt gni/shm {t[('gni', 64)][0] / t[('shm', 64)][0]:.2f}x (target <= 1.5x)")
print(f"ratio jmh bandwidth gni/shm {t[('shm', 1048576)][0] / t[('gni', 1048576)][0]:.2f}x (target >= 0.8x)")
PY
read -r sp50 smean _ < <(two_process shm 64 "$n")
read -r gp50 gmean _ < <(two_process gni 64 "$n")
read -r _ _ smbs < <(two_process shm 1048576 "$big")
read -r _ _ gmbs < <(two_process gni 1048576 "$big")
echo "2-proc shm: 64 B rtt p50 $sp50 ns mean $smean ns; 1 MiB $smbs MB/s"
echo "2-proc gni: 64 B rtt p50 $gp50 ns mean $gmean ns; 1 MiB $gmbs MB/s"
python3 -c "import sys; a=[float(x) for x in sys.argv[1:]]; print(f'ratio 2-proc rtt p50 gni/shm {a[1]/a[0]:.2f}x, bandwidth gni/shm {a[3]/a[2]:.2f}x')" \
  "$sp50" "$gp50" "$smbs" "$gmbs"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
