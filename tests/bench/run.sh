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
echo "*** the worker's patch path in Node (frame in, panel delta out)"
node tests/bench/path-bench.mjs "${quick[@]}"
echo
echo "*** wasm core in Node (as the extension runs it)"
node tests/bench/core-bench.mjs "${quick[@]}"
if [ -f tests/bench/panel-bench.mjs ]; then
  echo
  echo "*** DevTools panel in headless Chromium"
  timeout -k 10 600 node tests/bench/panel-bench.mjs "${quick[@]}"
fi
