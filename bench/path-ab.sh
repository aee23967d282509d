#!/usr/bin/env bash
# Same-run path-length comparison of builds: bench/path/PathHarness (one thread drives both sides of a 64 B tagged
# ping-pong, MANUAL) compiled against each jar, runs alternated; prints the smallest p50 of 5 rounds per run.
# Usage: bench/path-ab.sh RUNS "inproc shm" NAME=JAR [NAME=JAR ...]   (JAR: a shaded jfabric jar, e.g. cli/target/jfabric.jar)
set -euo pipefail
runs=$1; providers=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
opens="--add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED"
for spec in "$@"; do
    name=${spec%%=*}; jar=${spec#*=}
    mkdir -p "$work/$name"
    javac -nowarn -cp "$jar" -d "$work/$name" "$here/path/PathHarness.java"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$runs"); do
    for p in $providers; do
        for spec in "$@"; do
            name=${spec%%=*}; jar=${spec#*=}
            p50=$(timeout 120 java $opens -cp "$jar:$work/$name" PathHarness "$p" 100000 5 | awk '/ round /{print $5}' | sort -n | head -1)
            echo "$p $name run $r min-p50-ns $p50"
        done
    done
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
