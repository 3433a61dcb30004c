#!/usr/bin/env bash
# wasm/check_wasm.sh: the wabt gate for the wasm build.
#
#   bash wasm/check_wasm.sh [dist/slop_core.wasm [dist/slop_core.mjs]]
#
# Fails unless:
#   - wasm-validate accepts the module;
#   - the export list is exactly wasm/exports.txt plus EMSCRIPTEN_EXPORTS below;
#   - the import list is exactly EXPECTED_IMPORTS below (a stray fd_write, abort
#     or __assert_fail means libc/JS pulled in something the core must not use).
# Prints the wasm and JS glue sizes.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WASM=${1:-$HERE/../dist/slop_core.wasm}
GLUE=${2:-${WASM%.wasm}.mjs}
EXPORTS_TXT=$HERE/exports.txt

# What emscripten 3.1.6 adds to our exports, and the only import, with the
# link flags in wasm/Makefile (-Oz at link time). The import is the JS side of
# ALLOW_MEMORY_GROWTH. A -O1..-O3 link would add the exports stackSave,
# stackRestore, stackAlloc, __errno_location and the import env.emscripten_memcpy_big.
EMSCRIPTEN_EXPORTS=(memory __indirect_function_table __wasm_call_ctors)
EXPECTED_IMPORTS=(env.emscripten_resize_heap)

fail=0
err() { echo "check_wasm: $*" >&2; fail=1; }

[ -f "$WASM" ] || { echo "check_wasm: $WASM not found" >&2; exit 1; }
[ -f "$GLUE" ] || { echo "check_wasm: $GLUE not found" >&2; exit 1; }

wasm-validate "$WASM" || err "wasm-validate failed"

# diff_sets LABEL EXPECTED_FILE ACTUAL_FILE
diff_sets() {
    local d
    if ! d=$(diff <(sort -u "$2") <(sort -u "$3")); then
        err "$1 differ (< expected only, > actual only):"
        sed 's/^/    /' <<<"$d" | grep -E '^    [<>]' >&2
    fi
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

{ sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$EXPORTS_TXT"
  printf '%s\n' "${EMSCRIPTEN_EXPORTS[@]}"; } > "$tmp/exports.expected"
wasm-objdump -x -j Export "$WASM" | sed -nE 's/^ - .* -> "([^"]*)"$/\1/p' > "$tmp/exports.actual"
diff_sets "exports" "$tmp/exports.expected" "$tmp/exports.actual"

printf '%s\n' "${EXPECTED_IMPORTS[@]}" > "$tmp/imports.expected"
{ wasm-objdump -x -j Import "$WASM" 2>/dev/null || true; } | sed -nE 's/^ - .* <- (.*)$/\1/p' > "$tmp/imports.actual"
diff_sets "imports" "$tmp/imports.expected" "$tmp/imports.actual"

if wasm-objdump -h "$WASM" | grep -q '"name"'; then
    echo "check_wasm: note: a \"name\" custom section is present (debug build?)" >&2
fi

wasm_size=$(stat -c %s "$WASM"); glue_size=$(stat -c %s "$GLUE")
gz=$(( $(gzip -9c "$WASM" | wc -c) + $(gzip -9c "$GLUE" | wc -c) ))
echo "check_wasm: $(wc -l < "$tmp/exports.actual") exports, imports=[$(paste -sd' ' "$tmp/imports.actual")]"
echo "check_wasm: wasm ${wasm_size} B, js glue ${glue_size} B, gzip -9 total ${gz} B"
if [ "$fail" != 0 ]; then
    echo "check_wasm: FAILED for $WASM" >&2
    exit 1
fi
echo "check_wasm: OK"
