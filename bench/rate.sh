#!/usr/bin/env bash
# 8-byte message rate: jfabric fi_tinject over shm (two domains in one JVM, a sender thread and a receiving thread,
# bench/.../ShmTinjectRate) against Aeron's exclusive-publication IPC throughput sample (embedded shared-mode driver,
# a publisher and a subscriber thread), back to back on this machine, now. Prints each side's median of its
# one-second rate lines (warm-up seconds dropped) and the ratio jfabric / Aeron.
#
# Usage: bench/rate.sh [PROGRESS] [SECONDS] [WARMUP]
#   PROGRESS  MANUAL (default: each thread runs its own domain's agent) or AUTO (an agent thread per domain)
#   SECONDS   measured seconds per side (default 15)
#   WARMUP    seconds dropped at the start of each side (default 3)
# Needs: a built tree (mvn -q -DskipTests package), python3; fetches aeron-all 1.51.0 and HdrHistogram 2.2.2 into
# ~/.m2 with `mvn dependency:get` when they are missing (as ../shared/anchors/peers.sh does).
set -euo pipefail
root=$(cd -P "$(dirname "$0")/.." && pwd -P)
progress=${1:-MANUAL}
secs=${2:-15}
warm=${3:-3}
m2=${M2_REPO:-$HOME/.m2/repository}
aeron_jar="$m2/io/aeron/aeron-all/1.51.0/aeron-all-1.51.0.jar"
hdr_jar="$m2/org/hdrhistogram/HdrHistogram/2.2.2/HdrHistogram-2.2.2.jar"
bench_jar="$root/bench/target/benchmarks.jar"
[ -f "$bench_jar" ] || { echo "build first: mvn -q -DskipTests package" >&2; exit 2; }
[ -f "$aeron_jar" ] || mvn -q dependency:get -Dartifact=io.aeron:aeron-all:1.51.0 -Dtransitive=false >/dev/null
[ -f "$hdr_jar" ] || mvn -q dependency:get -Dartifact=org.hdrhistogram:HdrHistogram:2.2.2 -Dtransitive=false >/dev/null

echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(java -version 2>&1 | head -1)"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"

jf_out=$(java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp "$bench_jar" \
  io.jfabric.bench.runtime.ShmTinjectRate "$progress" "$secs" "$warm" 512)
echo "$jf_out" | sed 's/^/  jfabric: /'
jf=$(echo "$jf_out" | awk '/^jfabric-shm-tinject-8B median/ {print $3}')
echo "# load between: $(cut -d' ' -f1-3 /proc/loadavg)"

# The Aeron sample runs until killed and prints "Duration <ms>ms - <n> messages - ..." once a second.
aeron_out=$(timeout $(( secs + warm + 2 )) java -cp "$aeron_jar:$hdr_jar" \
  --add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED \
  -Daeron.sample.messageLength=8 io.aeron.samples.EmbeddedExclusiveIpcThroughput 2>&1 || true)
aeron=$(echo "$aeron_out" | python3 -c '
import re, sys
warm = int(sys.argv[1])
rates = []
for line in sys.stdin:
    m = re.match(r"Duration (\d+)ms - ([\d,]+) messages", line)
    if m:
        rates.append(int(m.group(2).replace(",", "")) * 1000.0 / int(m.group(1)))
rates = sorted(rates[warm:-1])  # drop warm-up lines and the last (cut short by the timeout)
n = len(rates)
print(0 if n == 0 else (rates[n // 2] if n % 2 else (rates[n // 2 - 1] + rates[n // 2]) / 2))
' "$warm")
{ echo "$aeron_out" | grep -c '^Duration' || true; } | sed 's/^/  aeron: rate lines /'
echo "aeron-ipc-exclusive-8B median $(printf '%.0f' "$aeron") msgs/s"
echo "jfabric-shm-tinject-8B ($progress) median $jf msgs/s"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 -c 'import sys; j, a = float(sys.argv[1]), float(sys.argv[2]); print(f"ratio jfabric / Aeron IPC  {j / a:.3f}x" if a > 0 else "ratio n/a")' "$jf" "$aeron"
