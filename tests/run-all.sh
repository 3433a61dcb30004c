#!/usr/bin/env bash
# tests/run-all.sh: runs every test against what build.sh built.
#
#   1. C unit tests (build/native/test_*, ASan+UBSan)
#   2. libFuzzer targets (build/fuzz/*_fuzzer), FUZZ_TIME seconds each (default 20)
#   3. node --test tests/node/       (the wasm build and the JS glue)
#   4. node --test tests/e2e/        (Playwright + Chromium), under timeout -k 10 900
#   5. node --test tests/firefox/    (web-ext lint; puppeteer-core + Firefox ESR over WebDriver
#                                     BiDi), under timeout -k 10 600
#
# Everything runs even after a failure; the exit code is non-zero if anything
# failed. Node's test runner prints the last summary lines.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
FUZZ_TIME=${FUZZ_TIME:-20}
failed=()

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

# ---------------------------------------------------------------- fuzzers
step "fuzzers (${FUZZ_TIME} s each)"
fuzzers=(tests/fuzz/*_fuzzer.c)
[ ${#fuzzers[@]} -gt 0 ] || echo "(no tests/fuzz/*_fuzzer.c)"
for src in "${fuzzers[@]}"; do
    name=$(basename "$src" .c); bin=build/fuzz/$name
    if [ ! -x "$bin" ]; then echo "FAIL $name: $bin was not built"; failed+=("$name (not built)"); continue; fi
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
    else
        failed+=("$name")
        echo "FAIL $name (exit $rc, ${runs:-?} executions); artifacts in $artifacts, log $log:"
        { sed -n '/ERROR\|runtime error\|deadly signal/,/SUMMARY/p' "$log" | head -n 30
          grep -E 'Test unit written|Done [0-9]+ runs' "$log"; } | sed 's/^/    /'
    fi
done

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
node --test tests/node/ || failed+=("node tests")

if [ ${#e2e_files[@]} -gt 0 ]; then
    step "end-to-end: node --test tests/e2e/ (Playwright, Chromium)"
    timeout -k 10 900 node --test tests/e2e/ || failed+=("e2e tests")
fi

step "Firefox: node --test tests/firefox/ (web-ext lint, puppeteer-core + Firefox ESR)"
timeout -k 10 600 node --test tests/firefox/ || failed+=("firefox tests")

[ ${#failed[@]} = 0 ]
