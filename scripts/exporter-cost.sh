#!/usr/bin/env bash
# exporter-cost.sh N DURATION [SCENARIO] - what 'lagscope exporter' costs
# the machine it runs on, per pair watched (docs/log/performance.md).
#
# Brings up N lab pairs (lagscope lab up SCENARIO, default caught-up: a
# light load), runs one exporter watching all of them for DURATION (seconds),
# and reads the exporter process's CPU time and resident memory every 10 s
# (/proc/PID/stat, /proc/PID/status), scraping /metrics every 10 s as
# Prometheus would. Prints one line per reading, then the CPU share of one
# core per pair and the memory at the start and end. Removes every pair on
# exit. Needs bin/lagscope (make build) and what 'lab up' needs.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:?usage: exporter-cost.sh N DURATION [SCENARIO]}
duration=${2:?usage: exporter-cost.sh N DURATION [SCENARIO]}
scenario=${3:-caught-up}
bin=bin/lagscope
work=$(mktemp -d)
pids=()
cleanup() {
	[ -n "${exp:-}" ] && kill "$exp" 2>/dev/null && wait "$exp" 2>/dev/null || true
	for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

echo "pairs:" >"$work/pairs.yaml"
for i in $(seq 1 "$n"); do
	$bin lab up "$scenario" --rows 50000 --duration 10s >"$work/up$i.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 1 120); do
		grep -q '^subscriber:' "$work/up$i.log" 2>/dev/null && break
		sleep 1
	done
	pub=$(sed -n 's/^publisher:  //p' "$work/up$i.log")
	sub=$(sed -n 's/^subscriber: //p' "$work/up$i.log")
	[ -n "$pub" ] || { cat "$work/up$i.log"; echo "pair $i did not come up" >&2; exit 1; }
	printf '  - name: p%d\n    publisher: "%s"\n    subscriber: "%s"\n' "$i" "$pub" "$sub" >>"$work/pairs.yaml"
done

$bin exporter --config "$work/pairs.yaml" --listen 127.0.0.1:0 2>"$work/exporter.log" &
exp=$!
sleep 2
port=$(sed -n 's/.*address=127.0.0.1:\([0-9]*\).*/\1/p' "$work/exporter.log" | head -1)
tck=$(getconf CLK_TCK)
cpu() { awk -v t="$tck" '{ print ($14 + $15) / t }' "/proc/$exp/stat"; }
rss() { awk '/VmRSS/ { print $2 }' "/proc/$exp/status"; }
start=$(date +%s.%N) c0=$(cpu) m0=$(rss)
echo "pairs=$n scenario=$scenario exporter pid $exp on port $port"
end=$(($(date +%s) + duration))
while [ "$(date +%s)" -lt "$end" ]; do
	sleep 10
	curl -s "http://127.0.0.1:$port/metrics" >/dev/null || true
	printf 't=%.0fs cpu=%.2fs rss=%dkB\n' "$(echo "$(date +%s.%N) - $start" | bc)" "$(cpu)" "$(rss)"
done
c1=$(cpu) m1=$(rss) wall=$(echo "$(date +%s.%N) - $start" | bc)
ok=$(curl -s "http://127.0.0.1:$port/metrics" | awk '/^lagscope_steps_total.*result="ok"/ { s += $2 } END { print s }')
echo "result: pairs=$n wall=${wall%.*}s cpu_share=$(echo "scale=4; ($c1 - $c0) / $wall" | bc) per_pair=$(echo "scale=4; ($c1 - $c0) / $wall / $n" | bc) rss_start=${m0}kB rss_end=${m1}kB ok_steps=$ok"
