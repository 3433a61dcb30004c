#!/usr/bin/env bash
# tests/run-all.sh: runs every test against what build.sh built.
#
#   1. C unit tests (build/native/test_*, ASan+UBSan)
#   2. libFuzzer targets (build/fuzz/*_fuzzer), FUZZ_TIME seconds each (default 20)
#   3. node --test tests/node/       (the wasm build and the JS glue)
#   4. node --test tests/e2e/        (Playwright + Chromium), under timeout -k 10 1500
#   5. node --test tests/firefox/    (web-ext lint; puppeteer-core + Firefox ESR over WebDriver
#                                     BiDi), under timeout -k 10 600
#
# Everything runs even after a failure. The run ends with one line per suite and
# a verdict line, "PASS: N passed, 0 failed" or "FAIL: N passed, M failed", and
# exits non-zero if anything failed.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
FUZZ_TIME=${FUZZ_TIME:-20}
failed=()
summary=()          # one line per suite, printed at the end
total_pass=0 total_fail=0 total_skip=0
RUN_LOGS=$(mktemp -d)
trap 'rm -rf "$RUN_LOGS"' EXIT

# suite NAME PASS FAIL [SKIP]: records a suite's counts for the summary.
suite() {
    local verdict=ok; [ "$3" != 0 ] && verdict=FAIL
    summary+=("$(printf '%-4s %-28s %5s passed, %s failed%s' "$verdict" "$1" "$2" "$3" "${4:+, $4 skipped}")")
    total_pass=$((total_pass + $2)); total_fail=$((total_fail + $3)); total_skip=$((total_skip + ${4:-0}))
}
# node_suite NAME TIMEOUT ARGS...: node --test, its output shown and its counts kept.
# A runner that dies before its summary (timeout, crash) counts as one failure.
node_suite() {
    local name=$1 limit=$2 log="$RUN_LOGS/node.log" rc p f s; shift 2
    timeout -k 10 "$limit" node --test "$@" 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}
    p=$(sed -nE 's/^# pass ([0-9]+)$/\1/p' "$log" | tail -n 1)
    f=$(sed -nE 's/^# fail ([0-9]+)$/\1/p' "$log" | tail -n 1)
    s=$(sed -nE 's/^# (skipped|todo) ([0-9]+)$/\2/p' "$log" | awk '{n += $1} END {print n + 0}')
    [ -z "$p" ] && p=0
    [ -z "$f" ] && f=0
    if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
        f=1; echo "*** $name: node --test exited $rc with no failed test counted (timeout after ${limit} s, or a crash)"
    fi
    [ "$rc" != 0 ] && failed+=("$name")
    suite "$name" "$p" "$f" "${s:-0}"
}

step() { printf '\n*** %s\n' "$*"; }

# ------------------------------------------------------------- C unit tests
step "C unit tests (ASan+UBSan)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
c_pass=0; c_fail=0
shopt -s nullglob
for src in tests/c/test_*.c; do
    name=$(basename "$src" .c); bin=build/native/$name
    if [ ! -x "$bin" ]; then
        echo "FAIL $name: $bin was not built"; c_fail=$((c_fail + 1)); failed+=("$name (not built)"); continue
    fi
    out=$("$bin" 2>&1); rc=$?
    if [ $rc = 0 ]; then
        c_pass=$((c_pass + 1)); echo "ok   $name: $(tail -n 1 <<<"$out")"
    else
        c_fail=$((c_fail + 1)); failed+=("$name")
        echo "FAIL $name (exit $rc):"; sed 's/^/    /' <<<"$out"
    fi
done
echo "C unit tests: $c_pass binaries passed, $c_fail failed"
suite "C unit tests (binaries)" "$c_pass" "$c_fail"

# ---------------------------------------------------------------- fuzzers
step "fuzzers (${FUZZ_TIME} s each)"
fuzzers=(tests/fuzz/*_fuzzer.c)
fz_pass=0 fz_fail=0
[ ${#fuzzers[@]} -gt 0 ] || echo "(no tests/fuzz/*_fuzzer.c)"
for src in "${fuzzers[@]}"; do
    name=$(basename "$src" .c); bin=build/fuzz/$name
    if [ ! -x "$bin" ]; then echo "FAIL $name: $bin was not built"; failed+=("$name (not built)"); fz_fail=$((fz_fail + 1)); continue; fi
    base=${name%_fuzzer}
    corpus=build/fuzz/corpus/$name; artifacts=build/fuzz/artifacts/$name
    mkdir -p "$corpus" "$artifacts"
    args=(-max_total_time="$FUZZ_TIME" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048
          -artifact_prefix="$artifacts/" "$corpus")
    for seeds in "tests/fuzz/${name}_inputs" "tests/fuzz/${base}_inputs"; do
        [ -d "$seeds" ] && { args+=("$seeds"); break; }   # read-only seeds: new inputs go to $corpus
    done
    for dict in "tests/fuzz/$name.dict" "tests/fuzz/$base.dict" tests/fuzz/slop.dict; do
        [ -f "$dict" ] && { args=(-dict="$dict" "${args[@]}"); break; }
    done
    log=build/fuzz/$name.log
    timeout -k 10 $((FUZZ_TIME + 120)) "$bin" "${args[@]}" >"$log" 2>&1; rc=$?
    runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -n 1)
    if [ $rc = 0 ]; then
        echo "ok   $name: ${runs:-?} executions in ${FUZZ_TIME} s, corpus $(find "$corpus" -type f | wc -l) files"
        fz_pass=$((fz_pass + 1))
    else
        failed+=("$name"); fz_fail=$((fz_fail + 1))
        echo "FAIL $name (exit $rc, ${runs:-?} executions); artifacts in $artifacts, log $log:"
        { sed -n '/ERROR\|runtime error\|deadly signal/,/SUMMARY/p' "$log" | head -n 30
          grep -E 'Test unit written|Done [0-9]+ runs' "$log"; } | sed 's/^/    /'
    fi
done

suite "fuzzers (${FUZZ_TIME} s each)" "$fz_pass" "$fz_fail"

# ---------------------------------------------------- summary before Node's
e2e_files=(tests/e2e/*.test.mjs tests/e2e/*.test.js)
if [ ${#failed[@]} -gt 0 ]; then
    echo; echo "*** native failures so far: ${failed[*]}"
fi
if [ ${#e2e_files[@]} = 0 ]; then
    echo; echo "*** end-to-end tests: SKIPPED (no tests/e2e/*.test.mjs or *.test.js files)"
fi

# ------------------------------------------------------------- Node tests
step "node --test tests/node/"
node_suite "Node (core build, glue)" 900 tests/node/

if [ ${#e2e_files[@]} -gt 0 ]; then
    step "end-to-end: node --test tests/e2e/ (Playwright, Chromium)"
    node_suite "end-to-end (Chromium)" 1500 tests/e2e/
fi

step "Firefox: node --test tests/firefox/ (web-ext lint, puppeteer-core + Firefox ESR)"
node_suite "Firefox" 600 tests/firefox/

# ------------------------------------------------------------------ verdict
echo
echo "*** summary"
printf '%s\n' "${summary[@]}"
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
if [ ${#failed[@]} = 0 ]; then verdict=PASS; else verdict=FAIL; fi
# The one closing line: "N passed, N failed" (CI reads it), after the verdict word.
skipped=""; [ "$total_skip" != 0 ] && skipped=", $total_skip skipped"
echo "$verdict: $total_pass passed, $total_fail failed$skipped"
[ ${#failed[@]} = 0 ]
