#!/usr/bin/env sh
# jfabric's aeron provider against Aeron's own UDP ping-pong, in the same run, plus the zero-allocation check of
# aeron's data path. Meant for a quiet machine: run it with nothing else running, after
#   mvn -q -DskipTests package
# from the repository root. Writes its tables and files under bench-results/aeron-<date>/ and prints them.
# Issue 14's targets: 64 B tagged RTT p50 <= 1.2x Aeron UDP's, message rate (8 B) >= 0.8x, 1 MiB bandwidth >= 0.8x,
# 0 B/op on the data path.
set -eu
here=$(cd -P "$(dirname "$0")/.." && pwd -P)
cd "$here"
out="bench-results/aeron-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
{
    echo "# machine: $(uname -srm), $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
    java -version 2>&1 | head -1
    git rev-parse --short HEAD 2>/dev/null || true
} | tee "$out/machine.txt"

# 1. Latency: 64 B tagged closed-loop round trips, jfabric aeron (UDP loopback) and Aeron UDP alternating.
./jfabric bench -q -m latency -p aeron --peers aeron-udp -S 64 -R 3 -d "$out" | tee "$out/latency.txt"
# 2. Message rate: 8 B, jfabric aeron tinject vs an Aeron exclusive publication on UDP.
./jfabric bench -q -m mr -p aeron --peers aeron-udp -S 8 --pairs 1 -R 3 -d "$out" | tee "$out/mr.txt"
# 3. Bandwidth: 1 MiB.
./jfabric bench -q -m bw -p aeron --peers aeron-udp -S 1m -R 3 -d "$out" | tee "$out/bw.txt"
# 4. Allocation on aeron's data path (gc.alloc.rate.norm should be ~0 B/op).
java -jar bench/target/benchmarks.jar 'AeronDataPathBenchmark' -f 1 -wi 3 -w 1s -i 5 -r 1s -prof gc \
    | tee "$out/alloc.txt" | grep -E 'Benchmark|avgt|alloc.rate.norm'
echo "results in $out"
