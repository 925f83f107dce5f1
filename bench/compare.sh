#!/usr/bin/env bash
# Every comparison of issue 12 in one run, for a machine lent for a few
# minutes (the 16-core machine) or for the 2-core one: lockkv against
# redis-server and etcd, and optionally against an earlier lockkv build.
#
#   go build -o /tmp/b/lockkv ./cmd/lockkv
#   go build -o /tmp/b/lockkv-bench ./cmd/lockkv-bench
#   (cd bench/locks && go build -o /tmp/b/lockbench .)
#   git worktree add /tmp/base <rev> && (cd /tmp/base && go build -o /tmp/b/lockkv-base ./cmd/lockkv)   # optional
#   BIN=/tmp/b OUT=/tmp/out bash bench/compare.sh
#
# BIN holds the binaries (redis-server, redis-cli, redis-benchmark and
# etcd are taken from PATH); OUT receives one file per comparison and
# summary.txt. QUICK=1 shortens every run (a first look, or a 10-minute
# limit). Each step has a timeout, so one that hangs costs its own time
# only. The numbers are comparable only within one run of this script.
set -u
BIN=${BIN:?BIN: the directory of lockkv, lockkv-bench and lockbench}
OUT=${OUT:-/tmp/lockkv-compare}
mkdir -p "$OUT"
D=4s R=3 CLIENTS=50,200,1000
[ "${QUICK:-}" = 1 ] && D=2s R=1 CLIENTS=50,200
T0=$(date +%s)
step() { echo "[$(($(date +%s) - T0))s, load $(cut -d' ' -f1-3 /proc/loadavg)] $*" | tee -a "$OUT/summary.txt"; }
{ nproc; uname -r; date -u; "$BIN/lockkv" --version 2>&1 | head -1; redis-server --version; etcd --version 2>&1 | head -1; } > "$OUT/env.txt" 2>&1

# 1. Single commands, each lockkv build against redis-server: throughput,
# p50/p99, the slowest round trip and CPU per operation.
for b in lockkv lockkv-base; do
  [ -x "$BIN/$b" ] || continue
  step "lockkv-bench $b"
  timeout 300 "$BIN/lockkv-bench" -lockkv-bin "$BIN/$b" -conns 50,200 -pipelines 1,16 \
    -workloads SET,GET,HINCRBY+PEXPIRE,EVALSHA -runs "$R" -memory-keys 0 > "$OUT/commands-$b.txt" 2>&1
done

# 2. Replicated locks: every target, spread and contended, every client count.
step "bench/locks"
timeout 420 "$BIN/lockbench" -lockkv-bin "$BIN/lockkv" -clients "$CLIENTS" -workloads spread,contended \
  -duration "$D" -warmup 1s -runs "$R" > "$OUT/locks.txt" 2>&1
if [ -x "$BIN/lockkv-base" ]; then
  step "bench/locks, base build"
  timeout 200 "$BIN/lockbench" -lockkv-bin "$BIN/lockkv-base" -targets lockkv-3,lockkv-3-nosync -clients 50,200 \
    -duration "$D" -warmup 1s -runs "$R" > "$OUT/locks-base.txt" 2>&1
fi

# 3. Failover: SIGKILL of the leader to the next acknowledged lock.
step "failover"
timeout 120 "$BIN/lockbench" -lockkv-bin "$BIN/lockkv" -failover 5 -clients 20 > "$OUT/failover.txt" 2>&1

# 4. Slow requests: lockkv's own account of every EVALSHA over 10 ms, with
# execution traces (go tool trace) of the moments around them.
step "slow requests"
rm -rf "$OUT/slow" && mkdir -p "$OUT/slow"
"$BIN/lockkv" --addr 127.0.0.1:7711 --log-level info --slow-trace-dir "$OUT/slow" --slow-trace-threshold 10ms 2> "$OUT/slow.log" &
P=$!
for i in $(seq 50); do redis-cli -p 7711 PING > /dev/null 2>&1 && break; sleep 0.1; done
timeout 120 "$BIN/lockkv-bench" -lockkv-addr 127.0.0.1:7711 -conns 50,200 -pipelines 1,16 -workloads EVALSHA \
  -runs 1 -memory-keys 0 > "$OUT/slow-bench.txt" 2>&1
kill "$P"; wait "$P" 2> /dev/null
echo "slow requests logged: $(grep -c 'msg="slow request"' "$OUT/slow.log")" >> "$OUT/summary.txt"

step done
for f in env commands-lockkv commands-lockkv-base locks locks-base failover slow-bench; do
  [ -f "$OUT/$f.txt" ] && { echo "== $f"; grep -v '^starting' "$OUT/$f.txt"; }
done >> "$OUT/summary.txt"
