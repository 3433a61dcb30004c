#!/usr/bin/env bash
# wasm/check_wasm.sh: the wabt gate for the wasm build.
#
#   bash wasm/check_wasm.sh [dist/slop_core.wasm [dist/slop_core.mjs]]
#   bash wasm/check_wasm.sh --list KIND
#
# Fails unless:
#   - wasm-validate accepts the module;
#   - the export list is exactly the functions and "@emscripten" entries of
#     wasm/exports.txt;
#   - the import list is exactly its "@import" entries.
# Prints the wasm and JS glue sizes.
#
# --list KIND prints the entries of one kind of wasm/exports.txt, one a line:
# "function" (the bare names), "emscripten", "import" or "runtime". The
# Makefile takes its link lists from here, so the file is read in one way.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
EXPORTS_TXT=$HERE/exports.txt

list() {
    awk -v kind="$1" '{ sub(/#.*/, ""); if (NF == 0) next
        if ($1 ~ /^@/) { if ($1 == "@" kind) print $2 } else if (kind == "function") print $1 }' "$EXPORTS_TXT"
}
if [ "${1:-}" = --list ]; then
    list "$2"
    exit 0
fi

WASM=${1:-$HERE/../dist/slop_core.wasm}
GLUE=${2:-${WASM%.wasm}.mjs}

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

{ list function; list emscripten; } > "$tmp/exports.expected"
wasm-objdump -x -j Export "$WASM" | sed -nE 's/^ - .* -> "([^"]*)"$/\1/p' > "$tmp/exports.actual"
diff_sets "exports" "$tmp/exports.expected" "$tmp/exports.actual"

list import > "$tmp/imports.expected"
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
