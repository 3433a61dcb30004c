#!/usr/bin/env bash
# tests/bench/run.sh: every benchmark, figures printed (npm run bench).
# Run after build.sh. Benchmarks report; they never fail on time.
set -euo pipefail
cd "$(dirname "$0")/../.."
quick=()
[ "${1:-}" = "--quick" ] && quick=(--quick)

echo "*** native core (C, -O2)"
build/native-release/native_bench "${quick[@]}"
echo
# Instructions per frame on the patch path's mix (native_bench --frames): the noise-free figure
# beside path-bench's times. callgrind counts only inside apply_frames (receive + drain).
if command -v valgrind >/dev/null; then
  echo "*** native core under callgrind: instructions per frame (1 op per frame, path-bench's mix)"
  sizes=(100 1000 10000 100000)
  [ ${#quick[@]} -eq 0 ] && sizes+=(1000000)
  for n in "${sizes[@]}"; do
    ir=$(valgrind --tool=callgrind --toggle-collect=apply_frames --callgrind-out-file=/dev/null \
      build/native-release/native_bench --frames "$n" 2000 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    printf '  %-9s %8d instructions per frame\n' "$n" $(( ir / 2000 ))
  done
else
  echo "(valgrind not installed: no instruction counts)"
fi
echo
# The state profiler's traffic counters (issue 49) on the same mix at 10k items: the build with
# them and the same program built without (-DSLOP_NO_COUNTERS), interleaved, then instructions.
echo "*** the profiler's counters: native core with and without, 1 op per frame on 10,000 items"
for round in 1 2 3; do
  for b in native_bench native_bench_nocounters; do
    printf '  %-24s %s\n' "$b" "$(build/native-release/$b --frames 10000 20000 | sed 's/.*patch events, //')"
  done
done
if command -v valgrind >/dev/null; then
  for b in native_bench native_bench_nocounters; do
    ir=$(valgrind --tool=callgrind --toggle-collect=apply_frames --callgrind-out-file=/dev/null \
      build/native-release/$b --frames 10000 2000 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    printf '  %-24s %8d instructions per frame\n' "$b" $(( ir / 2000 ))
  done
fi
echo
echo "*** the worker's patch path in Node (frame in, panel delta out)"
node tests/bench/path-bench.mjs "${quick[@]}"
echo
echo "*** wasm core in Node (as the extension runs it)"
node tests/bench/core-bench.mjs "${quick[@]}"
echo
echo "*** small trees: the core through js-glue beside a plain JS consumer (JSON.parse + apply), 1-op and 10-op frames"
node tests/bench/small-tree-bench.mjs "${quick[@]}"
if [ -f tests/bench/panel-bench.mjs ]; then
  echo
  echo "*** DevTools panel in headless Chromium"
  timeout -k 10 600 node tests/bench/panel-bench.mjs "${quick[@]}"
  echo
  echo "*** the panel with the History closed, then open (same load)"
  timeout -k 10 600 node tests/bench/history-bench.mjs "${quick[@]}"
fi
echo
echo "*** the test library (slop-inspector/node and /playwright) next to a bare ws client"
timeout -k 10 300 node tests/bench/library-bench.mjs "${quick[@]}"
echo
echo "*** the history against its bound (timeline.js, as the worker drives it)"
if [ ${#quick[@]} -gt 0 ]; then timeout -k 10 900 node tests/bench/history-bound-bench.mjs --sizes 100,10000,100000 --patches 3000
else timeout -k 10 1800 node tests/bench/history-bound-bench.mjs; fi
echo
echo "*** a viewed and a pinned step held through an hour of 100 patches/s (timeline-islands.js)"
if [ ${#quick[@]} -gt 0 ]; then timeout -k 10 300 node tests/bench/history-hold-bench.mjs --minutes 5
else timeout -k 10 900 node tests/bench/history-hold-bench.mjs; fi
echo
echo "*** the agent loop's own time per turn (js-glue/agent.js) next to a scripted model"
timeout -k 10 600 node tests/bench/agent-bench.mjs "${quick[@]}"
echo
echo "*** an Agent playground turn in Chromium: the worker's own time and the panel's, next to a scripted model"
timeout -k 10 600 node tests/bench/agent-extension-bench.mjs "${quick[@]}"
echo
echo "*** the desktop bridge: pairing, and a consumer's invoke through slop-inspector bridge next to the TypeScript server's way"
timeout -k 10 300 node tests/bench/bridge-bench.mjs "${quick[@]}"
echo
echo "*** local providers: Unix socket and stdio beside a loopback WebSocket (the Node client)"
timeout -k 10 300 node tests/bench/local-bench.mjs "${quick[@]}"
echo
echo "*** back after a provider restart: in a row, in bursts, the counter back at 1 (the Node client's policy, the worker's too)"
timeout -k 10 600 node tests/bench/restart-bench.mjs "${quick[@]}"
echo
echo "*** exact numbers: their cost beside JSON.parse / JSON.stringify"
timeout -k 10 300 node tests/bench/exact-bench.mjs "${quick[@]}"
echo
echo "*** the state profiler: the first full count at 10k and 100k nodes, a refresh after one patch, beside JSON.parse"
timeout -k 10 600 node tests/bench/profile-bench.mjs "${quick[@]}"
