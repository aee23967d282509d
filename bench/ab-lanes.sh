#!/bin/bash
# Same-run A/B of the 64 B tagged ping-pong (shm and inproc, MANUAL progress, `jfabric pingpong -I 200000`):
# builds were alternated run by run, as bench/README.md's "Second measurement" asks. Run it on a quiet machine
# (load average below 1): the machine's noise is larger than the differences looked for.
#
#   bench/ab-lanes.sh                      # builds this checkout's jar as /tmp/lanes-jfabric.jar, compares with base
#   VERSIONS="base main lanes" RUNS=5 ITERATIONS=200000 bench/ab-lanes.sh
#
# Each version V is /tmp/V-jfabric.jar (base: built from 1398423, the pre-v2 reference; main: any other build).
# Prints one line per run (provider version run p50 mean p99, ns) and, per provider, the median p50 of each version
# and its ratio to the first version.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
VERSIONS=${VERSIONS:-"base lanes"}
RUNS=${RUNS:-5}
ITERATIONS=${ITERATIONS:-200000}
if [ -z "${NO_BUILD:-}" ]; then
    (cd "$here" && mvn -o -q package -DskipTests -Djacoco.skip=true -pl cli -am)
    cp "$here/cli/target/jfabric.jar" /tmp/lanes-jfabric.jar
fi
for v in $VERSIONS; do
    [ -f "/tmp/$v-jfabric.jar" ] || { echo "missing /tmp/$v-jfabric.jar" >&2; exit 1; }
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
J="java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED
 --add-opens java.base/java.nio=ALL-UNNAMED -jar"
results=$(mktemp)
for p in shm inproc; do
    for r in $(seq 1 "$RUNS"); do
        for v in $VERSIONS; do
            out=$($J "/tmp/$v-jfabric.jar" pingpong -p "$p" -I "$ITERATIONS" --json 2>/dev/null || true)
            line="$p $v $r $(echo "$out" | python3 -c 'import json,sys
d=json.load(sys.stdin); d=d[0] if isinstance(d,list) else d; r=d["rtt_ns"]; print(r["p50"], r["mean"], r["p99"])' \
                2>/dev/null || echo "failed")"
            echo "$line" | tee -a "$results"
        done
    done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
python3 - "$results" $VERSIONS <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if len(l.split()) == 6]
versions = sys.argv[2:]
for p in ("shm", "inproc"):
    med = {v: statistics.median(float(r[3]) for r in rows if r[0] == p and r[1] == v)
           for v in versions if any(r[0] == p and r[1] == v for r in rows)}
    if versions[0] in med:
        print(p + ": " + ", ".join("%s p50 %.0f ns (%.3fx)" % (v, m, m / med[versions[0]]) for v, m in med.items()))
PY
rm -f "$results"
