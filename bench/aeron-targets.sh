#!/usr/bin/env bash
# Issue 14's performance targets for the aeron provider, against Aeron itself, in one run:
#   1. 64 B tagged round trip p50/p99/p99.9: `jfabric bench -m latency -p aeron --peers aeron-udp` on loopback (both
#      through the same rig, fresh JVM per run), and across two network namespaces joined by a veth pair:
#      `jfabric pingpong -p aeron --server` / client against an Aeron UDP ping-pong between the same namespaces
#      (bench's AeronUdpPingPong: embedded drivers set up as the provider's, SHARED + backoff, exclusive
#      publications, backoff idling as jfabric pingpong's default). Target: jfabric p50 <= 1.2x Aeron's.
#   2. 8 B message rate: `jfabric bench -m stream -S 8 -p aeron` (fi_tinject streamed one way, up to 1024 sent and
#      not yet received, the receiver keeping receives posted) against Aeron's EmbeddedExclusiveThroughput sample (an
#      exclusive publication on aeron:udp 127.0.0.1, 8 B messages, one way) and the rig's one-way Aeron UDP pair.
#      Target: >= 0.8x. Also the windowed, echoed rate (`-m mr --pairs 1`, window 64) against the rig's echoed pair.
#   3. 1 MiB bandwidth: `jfabric bench -m bw -S 1m -p aeron --peers aeron-udp` (window 64; Aeron's pair with a term
#      long enough for a whole 1 MiB message). Target: >= 0.8x.
# Each of RUNS runs alternates jfabric and Aeron; the table gives the median over runs of each figure and the ratio.
# Usage (from the repository root, after `mvn -q -DskipTests package`; the namespace part needs root and iproute2,
# and is skipped with its reason otherwise):
#   bench/aeron-targets.sh [RUNS=5] [ROUND_TRIPS=50000]
# AERON_TARGETS_PARTS (default "latency rate bandwidth") picks the parts; JFABRIC_JAR (default cli/target/jfabric.jar)
# the jar of the rate and bandwidth parts (before/after runs of two builds); AERON_TARGETS_WARMUP (default a fifth of
# ROUND_TRIPS) the warm-up round trips of the latency parts (jfabric's JIT compiles for ~10 s of a pingpong run on 2
# cores: a warm-up of 2000 leaves its compilation in the measured phase, Aeron's much smaller path is compiled sooner).
# Writes every raw output under bench-results/aeron-targets-<UTC time>/ and prints the ratio table (also table.md).
set -euo pipefail
root=$(cd -P "$(dirname "$0")/.." && pwd -P)
cd "$root"
runs=${1:-5}
trips=${2:-50000}
warm=${AERON_TARGETS_WARMUP:-$((trips / 5))}
m2=${M2_REPO:-$HOME/.m2/repository}
aeron_jar="$m2/io/aeron/aeron-all/1.51.0/aeron-all-1.51.0.jar"
hdr_jar="$m2/org/hdrhistogram/HdrHistogram/2.2.2/HdrHistogram-2.2.2.jar"
[ -f cli/target/jfabric.jar ] || { echo "build first: mvn -q -DskipTests package" >&2; exit 2; }
parts=${AERON_TARGETS_PARTS:-latency rate bandwidth}
jar=${JFABRIC_JAR:-cli/target/jfabric.jar}
want() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
[ -f "$aeron_jar" ] || mvn -q dependency:get -Dartifact=io.aeron:aeron-all:1.51.0 -Dtransitive=false >/dev/null
[ -f "$hdr_jar" ] || mvn -q dependency:get -Dartifact=org.hdrhistogram:HdrHistogram:2.2.2 -Dtransitive=false >/dev/null
out="bench-results/aeron-targets-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
opens="--add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED"
aeron_driver="-Daeron.threading.mode=SHARED -Daeron.shared.idle.strategy=backoff -Daeron.dir.delete.on.start=true"
aeron_driver="$aeron_driver -Daeron.dir.delete.on.shutdown=true -Daeron.term.buffer.sparse.file=true"
{
    echo "machine: $(uname -srm), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
    echo "java: $(java -version 2>&1 | head -1)"
    echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown), jar: $jar, parts: $parts"
    echo "runs: $runs, round trips per latency run: $trips, warm-up: $warm"
    echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$out/machine.txt"

ns_ok=""
nsa="jfab-at-a-$$"
nsb="jfab-at-b-$$"
cleanup()
{
    ip netns del "$nsa" 2>/dev/null || true
    ip netns del "$nsb" 2>/dev/null || true
}
trap cleanup EXIT
if ! want latency; then
    ns_ok="skipped: not asked for (AERON_TARGETS_PARTS)"
elif [ "$(id -u)" != 0 ]; then
    ns_ok="skipped: not root (network namespaces need CAP_SYS_ADMIN)"
elif ! command -v ip >/dev/null; then
    ns_ok="skipped: iproute2 (ip) is not installed"
elif ! { ip netns add "$nsa" && ip netns add "$nsb" &&
        ip link add "va$$" type veth peer name "vb$$" &&
        ip link set "va$$" netns "$nsa" && ip link set "vb$$" netns "$nsb" &&
        ip -n "$nsa" addr add 10.79.0.1/24 dev "va$$" && ip -n "$nsb" addr add 10.79.0.2/24 dev "vb$$" &&
        ip -n "$nsa" link set "va$$" up && ip -n "$nsb" link set "vb$$" up &&
        ip -n "$nsa" link set lo up && ip -n "$nsb" link set lo up; } 2>"$out/netns-setup.err"; then
    ns_ok="skipped: the kernel refused the namespaces or the veth pair: $(tr '\n' ' ' < "$out/netns-setup.err")"
fi
[ -n "$ns_ok" ] && echo "namespaces: $ns_ok" | tee -a "$out/machine.txt"

for r in $(seq 1 "$runs"); do
    echo "== run $r of $runs (load $(cut -d' ' -f1-3 /proc/loadavg))"
    # 1a. loopback: jfabric aeron then Aeron UDP through the same closed-loop rig, one JVM.
    if want latency; then
        ./jfabric bench -m latency -p aeron --peers aeron-udp -S 64 -R 1 -w "$warm" -n "$trips" --json \
            > "$out/lat-lo-$r.json" 2> "$out/lat-lo-$r.err" || echo "   loopback latency run $r failed (see lat-lo-$r.err)"
    fi
    # 1b. two namespaces: jfabric pingpong, then Aeron's Ping/Pong.
    if [ -z "$ns_ok" ]; then
        JFABRIC_JAVA_OPTS="-Djfabric.aeron.host=10.79.0.1" ip netns exec "$nsa" ./jfabric pingpong -p aeron \
            --server -S 64 -I "$trips" --warmup "$warm" --json > "$out/lat-ns-jf-server-$r.json" 2>&1 &
        server=$!
        sleep 3
        JFABRIC_JAVA_OPTS="-Djfabric.aeron.host=10.79.0.2" ip netns exec "$nsb" ./jfabric pingpong -p aeron \
            -S 64 -I "$trips" --warmup "$warm" --json 10.79.0.1 > "$out/lat-ns-jf-$r.json" 2> "$out/lat-ns-jf-$r.err" || true
        wait "$server" || true
        # shellcheck disable=SC2086
        ip netns exec "$nsa" timeout 300 java $opens -cp bench/target/benchmarks.jar \
            io.jfabric.bench.runtime.AeronUdpPingPong pong 10.79.0.1:20123 10.79.0.2:20124 $((trips + warm)) \
            > "$out/lat-ns-pong-$r.txt" 2>&1 &
        pong=$!
        # shellcheck disable=SC2086
        ip netns exec "$nsb" timeout 300 java $opens -cp bench/target/benchmarks.jar \
            io.jfabric.bench.runtime.AeronUdpPingPong ping 10.79.0.2:20124 10.79.0.1:20123 64 "$warm" "$trips" \
            > "$out/lat-ns-ping-$r.json" 2>&1 || true
        wait "$pong" 2>/dev/null || true
    fi
    # 2. message rate, 8 B: jfabric tinject and Aeron UDP through the rig (one-way stream, then windowed echo), then
    # Aeron's exclusive throughput sample.
    if want rate; then
        # shellcheck disable=SC2086
        java $opens --add-opens java.base/java.nio=ALL-UNNAMED -jar "$jar" bench -m stream -p aeron \
            --peers aeron-udp -S 8 -R 1 --json > "$out/stream-$r.json" 2> "$out/stream-$r.err" ||
            echo "   one-way message-rate run $r failed (see stream-$r.err)"
        # shellcheck disable=SC2086
        java $opens --add-opens java.base/java.nio=ALL-UNNAMED -jar "$jar" bench -m mr -p aeron --peers aeron-udp \
            -S 8 --pairs 1 -R 1 --json > "$out/mr-$r.json" 2> "$out/mr-$r.err" ||
            echo "   message-rate run $r failed (see mr-$r.err)"
        # shellcheck disable=SC2086
        timeout 10 java $opens $aeron_driver -Daeron.sample.messageLength=8 \
            "-Daeron.sample.channel=aeron:udp?endpoint=127.0.0.1:20121" -cp "$aeron_jar:$hdr_jar" \
            io.aeron.samples.EmbeddedExclusiveThroughput > "$out/mr-aeron-sample-$r.txt" 2>&1 || true
    fi
    # 3. bandwidth, 1 MiB.
    if want bandwidth; then
        # shellcheck disable=SC2086
        java $opens --add-opens java.base/java.nio=ALL-UNNAMED -jar "$jar" bench -m bw -p aeron --peers aeron-udp \
            -S 1m -R 1 --json > "$out/bw-$r.json" 2> "$out/bw-$r.err" || echo "   bandwidth run $r failed (see bw-$r.err)"
    fi
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/machine.txt"

python3 - "$out" "$runs" <<'EOF' | tee "$out/table.md"
import json, re, statistics, sys
out, runs = sys.argv[1], int(sys.argv[2])

def load(path):
    """The first JSON object in a file (a tool may print a line before it)."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None
    start = text.find("{")
    if start < 0:
        return None
    try:
        return json.JSONDecoder().raw_decode(text[start:])[0]
    except ValueError:
        return None

def series(doc, jfabric):
    if not doc:
        return None
    for s in doc.get("series", []):
        if s.get("jfabric") == jfabric and s.get("measured"):
            return s
    return None

def sample_rate(path, warm=3):
    rates = []
    try:
        with open(path) as f:
            for line in f:
                m = re.match(r"([0-9.]+e[+-][0-9]+) msgs/sec", line)
                if m:
                    rates.append(float(m.group(1)))
    except OSError:
        return None
    rates = rates[warm:-1]
    return statistics.median(rates) if rates else None

def med(values):
    values = [v for v in values if v is not None]
    return (statistics.median(values), len(values)) if values else (None, 0)

rows = []
def row(name, unit, jf, aeron, target, higher_better, base_name):
    (j, nj), (a, na) = med(jf), med(aeron)
    if j is None or a is None:
        rows.append(f"| {name} | {base_name} | {fmt(j, unit)} ({nj} runs) | {fmt(a, unit)} ({na} runs) | n/a | {target} | not measured |")
        return
    ratio = j / a
    met = ""
    if target:
        limit = float(target.split("x")[0].lstrip("<>= "))
        met = ("yes" if (ratio >= limit if higher_better else ratio <= limit) else "**no**")
    rows.append(f"| {name} | {base_name} | {fmt(j, unit)} | {fmt(a, unit)} | {ratio:.2f}x | {target or '-'} | {met or '-'} |")

def fmt(v, unit):
    if v is None:
        return "-"
    if unit == "ns":
        return f"{v / 1000:.1f} µs"
    if unit == "ops":
        return f"{v / 1e6:.3f} M/s"
    if unit == "MB":
        return f"{v:.0f} MB/s"
    return str(v)

lo_j = {k: [] for k in ("p50", "p99", "p999")}
lo_a = {k: [] for k in ("p50", "p99", "p999")}
ns_j = {k: [] for k in ("p50", "p99", "p999")}
ns_a = {k: [] for k in ("p50", "p99", "p999")}
mr_j, mr_rig, mr_sample, bw_j, bw_a = [], [], [], [], []
st_j, st_rig = [], []
for r in range(1, runs + 1):
    doc = load(f"{out}/lat-lo-{r}.json")
    j, a = series(doc, True), series(doc, False)
    for k in lo_j:
        lo_j[k].append(j["rtt_ns"][k] if j else None)
        lo_a[k].append(a["rtt_ns"][k] if a else None)
    pj = load(f"{out}/lat-ns-jf-{r}.json")
    pa = load(f"{out}/lat-ns-ping-{r}.json")
    for k in ns_j:
        ns_j[k].append(pj["rtt_ns"][k] if pj and "rtt_ns" in pj else None)
        ns_a[k].append(pa["rtt_ns"][k] if pa and "rtt_ns" in pa else None)
    doc = load(f"{out}/mr-{r}.json")
    j, a = series(doc, True), series(doc, False)
    mr_j.append(j["ops_per_sec"] if j else None)
    mr_rig.append(a["ops_per_sec"] if a else None)
    mr_sample.append(sample_rate(f"{out}/mr-aeron-sample-{r}.txt"))
    doc = load(f"{out}/stream-{r}.json")
    j, a = series(doc, True), series(doc, False)
    st_j.append(j["ops_per_sec"] if j else None)
    st_rig.append(a["ops_per_sec"] if a else None)
    doc = load(f"{out}/bw-{r}.json")
    j, a = series(doc, True), series(doc, False)
    bw_j.append(j["mb_per_sec"] if j else None)
    bw_a.append(a["mb_per_sec"] if a else None)

print("| figure | Aeron reference | jfabric aeron (median of runs) | Aeron (median of runs) | jfabric / Aeron | target | met? |")
print("|---|---|---|---|---|---|---|")
for k, label in (("p50", "p50"), ("p99", "p99"), ("p999", "p99.9")):
    row(f"64 B tagged RTT {label}, loopback", "ns", lo_j[k], lo_a[k], "<= 1.2x" if k == "p50" else "",
        False, "UDP pair, same rig")
for k, label in (("p50", "p50"), ("p99", "p99"), ("p999", "p99.9")):
    row(f"64 B tagged RTT {label}, two namespaces", "ns", ns_j[k], ns_a[k], "<= 1.2x" if k == "p50" else "",
        False, "Aeron UDP ping-pong, same namespaces")
row("8 B message rate (tinject), one-way stream", "ops", st_j, mr_sample, ">= 0.8x", True,
    "EmbeddedExclusiveThroughput, UDP")
row("8 B message rate (tinject), one-way stream", "ops", st_j, st_rig, "", True, "one-way UDP pair, same rig")
row("8 B message rate (tinject), window 64 echoed", "ops", mr_j, mr_rig, "", True, "echoed UDP pair, same rig")
row("8 B message rate (tinject), window 64 echoed", "ops", mr_j, mr_sample, "", True,
    "EmbeddedExclusiveThroughput, UDP")
row("1 MiB bandwidth", "MB", bw_j, bw_a, ">= 0.8x", True, "UDP pair, same rig")
print("\n".join(rows))
EOF
echo "results in $out"
