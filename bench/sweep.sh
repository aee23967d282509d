#!/usr/bin/env bash
# The -S all size sweep, two processes, jfabric shm against libfabric's shm provider (fi_pingpong), back to back.
# Prints one line per size: bytes, jfabric MB/s, libfabric MB/s, ratio (jfabric / libfabric). Both sides busy-poll
# (jfabric --idle spin; fi_pingpong always spins).
# Usage: bench/sweep.sh [ITERATIONS]   (default 200 round trips per size; both tools run the same sizes)
# Needs a built tree (mvn -q -DskipTests package), python3 and fi_pingpong (Debian libfabric-bin; peers.sh installs it).
set -euo pipefail
root=$(cd -P "$(dirname "$0")/.." && pwd -P)
n=${1:-200}
jf="$root/jfabric"
command -v fi_pingpong >/dev/null 2>&1 || bash "$root/../shared/anchors/peers.sh" libfabric-shm 64 10 >/dev/null
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
tmp=$(mktemp -d)

port=$(free_port)
"$jf" pingpong --server -p shm --idle spin -B "$port" --timeout 300 >/dev/null 2>&1 &
srv=$!
sleep 1.5
"$jf" pingpong -p shm --idle spin -P "$port" -S all -I "$n" --warmup "$n" --timeout 300 --json 127.0.0.1 > "$tmp/jf.json"
wait "$srv" || true

port=$(free_port)
timeout 600 fi_pingpong -p shm -e rdm -m tagged -S all -I "$n" -B "$port" >/dev/null 2>&1 &
srv=$!
sleep 1
timeout 600 fi_pingpong -p shm -e rdm -m tagged -S all -I "$n" -P "$port" 127.0.0.1 > "$tmp/lf.txt" 2>&1
wait "$srv" || true

python3 - "$tmp/jf.json" "$tmp/lf.txt" <<'EOF'
import json, sys
jf = {d["size"]: d["mb_per_sec"] for d in json.load(open(sys.argv[1]))}
units = {"k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}
def size(text):
    t = text.lower()
    return int(float(t[:-1]) * units[t[-1]]) if t[-1] in units else int(t)
lf = {}
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) >= 8 and f[0][0].isdigit():
        try:
            lf[size(f[0])] = float(f[5])
        except ValueError:
            pass
print(f"{'bytes':>10} {'jfabric MB/s':>14} {'libfabric MB/s':>15} {'ratio':>7}")
for s in sorted(jf):
    if s in lf and lf[s] > 0:
        print(f"{s:>10} {jf[s]:>14.2f} {lf[s]:>15.2f} {jf[s] / lf[s]:>6.2f}x")
EOF
rm -rf "$tmp"
