#!/usr/bin/env bash
# Measures jfabric's ping-pongs and the peers back to back, on this machine, now, and prints one line per figure
# plus the ratios the issues ask for. Ratios from one run of this script are comparable; absolute times from
# different runs are not (the build machines are shared).
#
# Usage: bench/compare.sh [ITERATIONS] [BIG_ITERATIONS]
#   ITERATIONS      64 B round trips per measurement (default 200000)
#   BIG_ITERATIONS  1 MiB round trips per measurement (default 2000)
# Needs: a built tree (mvn -q -DskipTests package), python3; peers.sh installs libfabric-bin and Aeron itself.
# The Aeron IPC peer takes about five minutes: its sample's pong thread keeps the JVM alive until peers.sh's
# 300 s timeout ends it (its figures are complete by then).
set -euo pipefail
root=$(cd -P "$(dirname "$0")/.." && pwd -P)
peers=${PEERS:-$root/../shared/anchors/peers.sh}
n=${1:-200000}
big=${2:-2000}
warm=$(( n / 4 ))
jf="$root/jfabric"
[ -f "$root/cli/target/jfabric.jar" ] || { echo "build first: mvn -q -DskipTests package" >&2; exit 2; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# figures from one --json object: p50, p99, mean round trip (ns) and MB/s
fig() { python3 -c 'import json,sys; d=json.load(sys.stdin); r=d["rtt_ns"]; print(r["p50"], r["p99"], int(r["mean"]), d["mb_per_sec"])'; }

two_process() {  # provider size iterations warmup
  local port; port=$(free_port)
  "$jf" pingpong --server -p "$1" -B "$port" --timeout 120 >/dev/null 2>&1 &
  local srv=$!
  sleep 1.5
  "$jf" pingpong -p "$1" -P "$port" -S "$2" -I "$3" --warmup "$4" --timeout 120 --json 127.0.0.1 | fig
  wait "$srv" || true
}

echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(java -version 2>&1 | head -1)"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
read -r sp50 sp99 smean _ < <(two_process shm 64 "$n" "$warm")
echo "jfabric-shm-2proc rtt_p50 $sp50 ns / rtt_p99 $sp99 ns / rtt_mean $smean ns"
read -r ip50 ip99 imean _ < <("$jf" pingpong -p inproc -S 64 -I "$n" --warmup "$warm" --json | fig)
echo "jfabric-inproc rtt_p50 $ip50 ns / rtt_p99 $ip99 ns / rtt_mean $imean ns"
read -r bp50 _ bmean bmbs < <(two_process shm 1048576 "$big" $(( big / 4 )))
echo "jfabric-shm-2proc-1MiB rtt_p50 $bp50 ns / rtt_mean $bmean ns / $bmbs MB/s"

lf=$(bash "$peers" libfabric-shm 64 "$n" tagged | awk '{print $3}')
echo "libfabric-shm-tagged rtt_mean $lf ns"
lfb=$(bash "$peers" libfabric-shm 1048576 "$big" tagged | awk '{print $3}')
echo "libfabric-shm-tagged-1MiB rtt_mean $lfb ns"
floor=$(bash "$peers" ring-floor | awk '/p50/ {print $3}')
echo "ring-floor rtt_p50 $floor ns"
aeron=$(bash "$peers" aeron-ipc 64 "$n" | awk '/rtt_p50 / {print $3}')
echo "aeron-ipc rtt_p50 ${aeron:-none} ns"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$sp50" "$smean" "$ip50" "$bmean" "$lf" "$lfb" "$floor" "${aeron:-0}" <<'EOF'
import sys
sp50, smean, ip50, bmean, lf, lfb, floor, aeron = (float(x) for x in sys.argv[1:])
def r(a, b):
    return f"{a / b:.2f}x" if b > 0 else "n/a"
print(f"ratio shm 2-proc p50 / Aeron IPC p50            {r(sp50, aeron)}")
print(f"ratio shm 2-proc mean / libfabric shm mean      {r(smean, lf)}")
print(f"ratio shm 2-proc p50 / ring floor p50           {r(sp50, floor)}")
print(f"ratio inproc p50 / Aeron IPC p50                {r(ip50, aeron)}")
print(f"ratio 1 MiB bandwidth shm / libfabric shm       {r(lfb, bmean)}  (mean round trips, inverted)")
EOF
