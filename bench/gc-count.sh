#!/usr/bin/env bash
# Zero GC over many round trips (issue 16): runs `jfabric pingpong` (tagged 64 B, MANUAL progress) for ROUNDTRIPS
# measured round trips after a warm-up of a fifth as many, in process (inproc, two threads) and over shm (server and
# client in two processes), each JVM logging its collections (-Xlog:gc), and prints the GC count of every JVM with
# its p50. Expected: 0 everywhere. Exit status 1 when any JVM collected.
#
# Usage: bench/gc-count.sh [ROUNDTRIPS] [PROVIDER...]
#   ROUNDTRIPS  measured round trips per provider (default 10000000)
#   PROVIDER    inproc and/or shm (default: both)
# Needs: a built tree (mvn -q -DskipTests package), python3.
set -uo pipefail
root=$(cd -P "$(dirname "$0")/.." && pwd -P)
n=${1:-10000000}
shift || true
providers=${*:-inproc shm}
warm=$(( n / 5 ))
jf="$root/jfabric"
[ -f "$root/cli/target/jfabric.jar" ] || { echo "build first: mvn -q -DskipTests package" >&2; exit 2; }
tmp=$(mktemp -d /tmp/jfabric-gc-XXXX)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
p50() { python3 -c 'import json,sys; print(json.load(sys.stdin)["rtt_ns"]["p50"])'; }
# collections in a -Xlog:gc file: distinct GC(n) ids (every pause and concurrent cycle has one); none when no file
gcs() { [ -f "$1" ] && { grep -o 'GC([0-9]*)' "$1" | sort -u | wc -l; }; }
# A young generation of 64 MiB: the start-up's class loading and JIT garbage fits (about 20 MiB), while one 16-byte
# object per round trip would fill it 2.5 times over 10M round trips.
heap="-Xms256m -Xmn64m"
common=(-m tagged -S 64 -I "$n" --warmup "$warm" --progress manual --idle spin --timeout 3600)
status=0
echo "# $(nproc) cores, $(java -version 2>&1 | head -1), load $(cut -d' ' -f1-3 /proc/loadavg); $n round trips"
for p in $providers; do
  if [ "$p" = inproc ]; then
    r=$(JFABRIC_JAVA_OPTS="$heap -Xlog:gc:file=$tmp/inproc.log" "$jf" pingpong -p inproc "${common[@]}" --json | p50)
    c=$(gcs "$tmp/inproc.log")
    echo "inproc (one JVM, two threads): p50 ${r:-none} ns, GC count ${c:-none}"
    [ "${c:-1}" = 0 ] && [ -n "${r:-}" ] || status=1
  else
    port=$(free_port)
    JFABRIC_JAVA_OPTS="$heap -Xlog:gc:file=$tmp/$p-server.log" "$jf" pingpong --server -p "$p" --progress manual \
      --idle spin -B "$port" --timeout 3600 >/dev/null 2>&1 &
    srv=$!
    sleep 1.5
    r=$(JFABRIC_JAVA_OPTS="$heap -Xlog:gc:file=$tmp/$p-client.log" "$jf" pingpong -p "$p" -P "$port" "${common[@]}" \
      --json 127.0.0.1 | p50)
    wait "$srv" 2>/dev/null || true
    cc=$(gcs "$tmp/$p-client.log"); cs=$(gcs "$tmp/$p-server.log")
    echo "$p (two processes): p50 ${r:-none} ns, GC count client ${cc:-none} / server ${cs:-none}"
    [ "${cc:-1}" = 0 ] && [ "${cs:-1}" = 0 ] && [ -n "${r:-}" ] || status=1
  fi
done
echo "# GC logs in $tmp"
exit $status
