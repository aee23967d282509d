#!/usr/bin/env bash
# Issue 16's targets in one run: every latency figure and its reference, alternating, RUNS times, then the median of
# the per-run ratios against each target. Ratios from one run of this script are comparable; absolute times from
# different runs are not. Meant for a quiet machine with dedicated cores (on a loaded one it measures scheduling).
#
# Usage: bench/targets.sh [RUNS] [ITERATIONS] [RATE_SECONDS]
#   RUNS          repetitions of the whole alternating set (default 5; the issue asks for at least 5)
#   ITERATIONS    64 B round trips per ping-pong (default 200000; a quarter more as warm-up)
#   RATE_SECONDS  measured seconds per message-rate side (default 10; 2 more are dropped as warm-up)
# Environment: OUT=dir keeps the raw figures (results.tsv, log.txt; default a temporary folder, printed);
#   PEERS=path/to/peers.sh (default ../shared/anchors/peers.sh); DEPTH_JMH=0 skips the matching-depth JMH run;
#   JMH_TIME=1s sets its warm-up/measurement iteration time; AUTO_N=count sets the AUTO ping-pong's round trips
#   (default ITERATIONS; on 2 cores AUTO's four spinning threads make each round trip milliseconds); PEER_TIMEOUT=600 bounds each peer's run in seconds
#   (peers.sh's ring floor runs a fixed 2M round trips: seconds on a quiet machine, much longer on a loaded one).
# Per run, in this order: jfabric shm two processes (tagged 64 B, MANUAL, spin), jfabric inproc two threads (MANUAL,
# spin), jfabric shm two processes with AUTO progress (an agent thread per domain, spin), Aeron IPC ping-pong, the
# bare mapped-ring floor, libfabric shm tagged (when fi_pingpong is installed), UCX tag_lat over shared memory (when
# ucx_perftest is installed), then the 8 B message rate (jfabric shm tinject vs Aeron exclusive IPC, bench/rate.sh),
# alone and with a third busy thread spinning beside it. Nothing is installed: a missing peer is reported missing.
# Needs: a built tree (mvn -q -DskipTests package), python3, the Aeron and HdrHistogram jars in ~/.m2 (peers.sh
# and rate.sh fetch them when missing and the network allows).
set -uo pipefail
root=$(cd -P "$(dirname "$0")/.." && pwd -P)
peers=${PEERS:-$root/../shared/anchors/peers.sh}
runs=${1:-5}
n=${2:-200000}
secs=${3:-10}
warm=$(( n / 4 ))
jf="$root/jfabric"
out=${OUT:-$(mktemp -d /tmp/jfabric-targets-XXXX)}
mkdir -p "$out"
tsv="$out/results.tsv"
log="$out/log.txt"
: >"$tsv"
: >"$log"
[ -f "$root/cli/target/jfabric.jar" ] || { echo "build first: mvn -q -DskipTests package" >&2; exit 2; }
[ -f "$root/bench/target/benchmarks.jar" ] || { echo "build first: mvn -q -DskipTests package" >&2; exit 2; }
[ -f "$peers" ] || { echo "peers.sh not found: $peers (set PEERS)" >&2; exit 2; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# p50 p99 mean (ns) from one `jfabric pingpong --json` object
fig() { python3 -c 'import json,sys; r=json.load(sys.stdin)["rtt_ns"]; print(r["p50"], r["p99"], int(r["mean"]))'; }
rec() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$tsv"; }  # run name metric value
say() { echo "$*" | tee -a "$log"; }
peer() { timeout "${PEER_TIMEOUT:-600}" bash "$peers" "$@"; }

two_process() {  # progress iterations warmup: jfabric shm, server and client in two processes, spinning waits
  local port srv
  port=$(free_port)
  "$jf" pingpong --server -p shm --progress "$1" --idle spin -B "$port" --timeout 300 >>"$log" 2>&1 &
  srv=$!
  sleep 1.5
  "$jf" pingpong -p shm --progress "$1" --idle spin -P "$port" -S 64 -I "$2" --warmup "$3" --timeout 300 --json \
    127.0.0.1 2>>"$log" | fig
  wait "$srv" 2>/dev/null || true
}

pingpong_shm() {  # run progress name
  local p50 p99 mean count=$n
  # AUTO on a machine with fewer cores than spinning threads runs at millisecond round trips: AUTO_N bounds it.
  [ "$2" = auto ] && count=${AUTO_N:-$n}
  read -r p50 p99 mean < <(two_process "$2" "$count" $(( count / 4 )))
  say "run $1 $3 p50 ${p50:-none} p99 ${p99:-none} mean ${mean:-none} ns"
  [ -n "${p50:-}" ] && { rec "$1" "$3" p50 "$p50"; rec "$1" "$3" p99 "$p99"; rec "$1" "$3" mean "$mean"; }
}

rate() {  # run name [busy]
  local busy="" text jfr aer
  if [ -n "${3:-}" ]; then
    # a third busy thread on the same cores (a shell loop: it only takes CPU)
    bash -c 'while :; do :; done' &
    busy=$!
  fi
  text=$(bash "$root/bench/rate.sh" MANUAL "$secs" 2 2>>"$log")
  [ -n "$busy" ] && { kill "$busy" 2>/dev/null; wait "$busy" 2>/dev/null; }
  echo "$text" >>"$log"
  jfr=$(echo "$text" | awk '/jfabric-shm-tinject-8B median/ {print $(NF-1); exit}')
  aer=$(echo "$text" | awk '/^aeron-ipc-exclusive-8B/ {print $(NF-1)}')
  say "run $1 $2 jfabric ${jfr:-none} aeron ${aer:-none} msgs/s"
  [ -n "${jfr:-}" ] && rec "$1" "$2" jfabric "$jfr"
  [ -n "${aer:-}" ] && rec "$1" "$2" aeron "$aer"
}

say "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(java -version 2>&1 | head -1)"
say "# commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown); runs $runs, $n round trips, rate $secs s"
have_libfabric=$(command -v fi_pingpong >/dev/null 2>&1 && echo yes || echo no)
have_ucx=$(command -v ucx_perftest >/dev/null 2>&1 && echo yes || echo no)
[ "$have_libfabric" = yes ] || say "# libfabric shm: missing (fi_pingpong not installed: Debian libfabric-bin)"
[ "$have_ucx" = yes ] || say "# UCX: missing (ucx_perftest not installed: Debian ucx-utils)"

for r in $(seq 1 "$runs"); do
  say "# run $r, load $(cut -d' ' -f1-3 /proc/loadavg)"
  pingpong_shm "$r" manual shm
  read -r p50 p99 mean < <("$jf" pingpong -p inproc --progress manual --idle spin -S 64 -I "$n" --warmup "$warm" \
    --timeout 300 --json 2>>"$log" | fig)
  say "run $r inproc p50 ${p50:-none} p99 ${p99:-none} mean ${mean:-none} ns"
  [ -n "${p50:-}" ] && rec "$r" inproc p50 "$p50"
  pingpong_shm "$r" auto auto
  text=$(peer aeron-ipc 64 "$n" 2>>"$log")
  echo "$text" >>"$log"
  a50=$(echo "$text" | awk '/rtt_p50 / {print $3}')
  a99=$(echo "$text" | awk '/rtt_p99 / {print $3}')
  say "run $r aeron p50 ${a50:-none} p99 ${a99:-none} ns"
  [ -n "${a50:-}" ] && rec "$r" aeron p50 "$a50"
  [ -n "${a99:-}" ] && rec "$r" aeron p99 "$a99"
  floor=$(peer ring-floor 2>>"$log" | awk '/rtt_p50/ {print $3}')
  say "run $r ring-floor p50 ${floor:-none} ns"
  [ -n "${floor:-}" ] && rec "$r" floor p50 "$floor"
  if [ "$have_libfabric" = yes ]; then
    lf=$(peer libfabric-shm 64 "$n" tagged 2>>"$log" | awk '{print $3}')
    say "run $r libfabric-shm-tagged mean ${lf:-none} ns"
    [ -n "${lf:-}" ] && rec "$r" libfabric mean "$lf"
  fi
  if [ "$have_ucx" = yes ]; then
    text=$(peer ucx-shm 64 "$n" 2>>"$log")
    u50=$(echo "$text" | awk '/rtt_p50/ {print $3}')
    umean=$(echo "$text" | awk '/rtt_mean/ {print $3}')
    say "run $r ucx-shm p50 ${u50:-none} mean ${umean:-none} ns"
    [ -n "${u50:-}" ] && rec "$r" ucx p50 "$u50"
  fi
  rate "$r" rate
  rate "$r" rate-busy busy
done

if [ "${DEPTH_JMH:-1}" != 0 ]; then
  t=${JMH_TIME:-1s}
  say "# matching depth: DeepPostedBenchmark, storage auto and list, depth 1 and 1024 ($t iterations)"
  java -jar "$root/bench/target/benchmarks.jar" DeepPostedBenchmark -f 1 -wi 2 -w "$t" -i 3 -r "$t" \
    -rf csv -rff "$out/depth.csv" >>"$log" 2>&1 || say "# DeepPostedBenchmark failed (see $log)"
fi

python3 - "$tsv" "$out/depth.csv" "$have_libfabric" "$have_ucx" <<'EOF' | tee -a "$log"
import csv, os, statistics, sys
tsv, depth_csv, have_lf, have_ucx = sys.argv[1:]
fig = {}
for line in open(tsv):
    run, name, metric, value = line.rstrip("\n").split("\t")
    fig[(int(run), name, metric)] = float(value)
runs = sorted({k[0] for k in fig})

def ratios(num, den, invert=False):
    out = []
    for r in runs:
        a, b = fig.get((r,) + num), fig.get((r,) + den)
        if a and b:
            out.append(b / a if invert else a / b)
    return out

def busy_degradation():
    out = []
    for r in runs:
        j, jb = fig.get((r, "rate", "jfabric")), fig.get((r, "rate-busy", "jfabric"))
        a, ab = fig.get((r, "rate", "aeron")), fig.get((r, "rate-busy", "aeron"))
        if j and jb and a and ab:
            out.append((jb / j) / (ab / a))
    return out

rows = [
    ("shm 2-proc p50 / Aeron IPC p50", ratios(("shm", "p50"), ("aeron", "p50")), "<=", 1.0, ""),
    ("shm 2-proc p50 / ring floor p50", ratios(("shm", "p50"), ("floor", "p50")), "<=", 1.5, ""),
    ("shm 2-proc p99 / Aeron IPC p99", ratios(("shm", "p99"), ("aeron", "p99")), "<=", 2.0, ""),
    ("shm 2-proc mean / libfabric shm mean", ratios(("shm", "mean"), ("libfabric", "mean")), "<=", 0.5,
     "" if have_lf == "yes" else "libfabric missing"),
    ("shm 2-proc p50 / UCX tag_lat p50", ratios(("shm", "p50"), ("ucx", "p50")), "<=", 1.0,
     "" if have_ucx == "yes" else "UCX missing"),
    ("inproc p50 / Aeron IPC p50", ratios(("inproc", "p50"), ("aeron", "p50")), "<=", 1.0, ""),
    ("AUTO shm p50 / Aeron IPC p50", ratios(("auto", "p50"), ("aeron", "p50")), "<=", 1.5, ""),
    ("tinject 8 B rate / Aeron excl. IPC rate", ratios(("rate", "jfabric"), ("rate", "aeron")), ">=", 1.0, ""),
    ("rate kept with a busy thread, jfabric / Aeron", busy_degradation(), ">=", 1.0, ""),
]
if os.path.exists(depth_csv):
    score = {}
    with open(depth_csv) as f:
        for row in csv.DictReader(f):
            score[(row.get("Param: storage"), row.get("Param: depth"))] = float(row["Score"])
    for storage in ("auto", "list"):
        d1, d1024 = score.get((storage, "1")), score.get((storage, "1024"))
        if d1 and d1024:
            rows.append((f"depth 1024 / depth 1 round trip ({storage})", [d1024 / d1], "<=", 1.1,
                         "one JMH run" + ("" if storage == "auto" else "; reference, not a target")))

print()
print("| target | median of per-run ratios | runs | per-run | goal | met? |")
print("|---|---|---|---|---|---|")
for name, values, op, goal, note in rows:
    if not values:
        print(f"| {name} | n/a | 0 | | {op} {goal} | {note or 'no figures'} |")
        continue
    med = statistics.median(values)
    ok = med <= goal if op == "<=" else med >= goal
    per = ", ".join(f"{v:.2f}" for v in values)
    print(f"| {name} | {med:.2f}x | {len(values)} | {per} | {op} {goal} | {'yes' if ok else 'no'}"
          f"{'; ' + note if note else ''} |")
EOF
say "# load after: $(cut -d' ' -f1-3 /proc/loadavg); raw figures in $out"
