#!/usr/bin/env bash
# build.sh: set-up and build of SLOP Inspector on a Debian 12 machine (run as root
# on a fresh machine; later runs only rebuild what changed).
#
#   1. installs the Debian packages that are missing
#   2. gets Debian's security-patched cJSON source (apt-get source) into .cache/cjson,
#      or takes $CJSON_SRC, and fails unless every Debian patch is applied
#   3. npm ci when node_modules is missing or older than package-lock.json
#   4. make -f wasm/Makefile: what the purpose needs (below)
#   5. assembles the unpacked extension in build/extension/
#
#   bash build.sh [all|start|test|bench|extension]      (default: all)
#     extension  the wasm core (dist/), the wabt gate and build/extension: what a user loads
#     start      extension, and Chromium for the demo                       (npm start)
#     test       extension + ASan/UBSan lib and C tests + fuzzers, Chromium and Firefox ESR (npm test)
#     bench      extension + the -O2 lib and native benchmarks, Chromium   (npm run bench)
#     all        everything above
#
# Environment: CJSON_SRC=<extracted Debian cjson source dir> skips step 2's download.
#              JOBS=<n> parallel make jobs (default: nproc).
set -euo pipefail

PURPOSE=${1:-all}
case "$PURPOSE" in all|start|test|bench|extension) ;; *) echo "usage: build.sh [all|start|test|bench|extension]" >&2; exit 2 ;; esac
wants() { [ "$PURPOSE" = all ] || [[ " $* " == *" $PURPOSE "* ]]; }

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$ROOT"
START=$EPOCHREALTIME
export DEBIAN_FRONTEND=noninteractive
export NODE_PATH=/usr/share/nodejs   # Debian's emcc needs acorn from here

trap 'echo "!!! build.sh failed (exit $?) at line $LINENO: $BASH_COMMAND" >&2' ERR
step() { printf '*** %s\n' "$*"; }
die()  { printf '\n!!! build.sh: %s\n\n' "$*" >&2; exit 1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else die "needs root for: $*"; fi; }

# Registries time out now and then (a CI run once died on one npm idle timeout):
# each download is retried with a growing pause before the build gives up.
retry() {
    local attempt=1 max=4
    until "$@"; do
        [ "$attempt" -ge "$max" ] && return 1
        echo "--- attempt $attempt of $max failed: $*; again in $((attempt * 10)) s" >&2
        sleep $((attempt * 10)); attempt=$((attempt + 1))
    done
}
APT_OPTS=(-o Acquire::Retries=3)

APT_UPDATED=0
apt_update_once() {
    if [ "$APT_UPDATED" = 0 ]; then retry as_root apt-get "${APT_OPTS[@]}" update -qq; APT_UPDATED=1; fi
}

# ------------------------------------------------------------------ packages
step "packages"
# The core's toolchain always (dpkg-dev: apt-get source); the browsers and the fuzzing
# compiler only for what uses them.
PACKAGES=(emscripten wabt dpkg-dev gcc make)
wants start test bench && PACKAGES+=(chromium)
wants test && PACKAGES+=(clang libclang-rt-14-dev firefox-esr)
missing=()
for p in "${PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    apt_update_once
    retry as_root apt-get "${APT_OPTS[@]}" install -y -q "${missing[@]}"
else
    echo "all present"
fi

# --------------------------------------------------------------------- cJSON
# Debian's cjson source package carries security patches (CVE-2025-57052, heap
# overflows); the upstream tarball alone does not. Never build from it.
has_deb_src() {
    grep -qsE '^[[:space:]]*deb-src[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list && return 0
    grep -qsE '^[[:space:]]*Types:.*\bdeb-src\b' /etc/apt/sources.list.d/*.sources && return 0
    return 1
}
add_deb_src() {
    local out=/etc/apt/sources.list.d/slop-src.sources
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        # Same stanzas as the deb entries, as deb-src.
        as_root awk '
            function flush() { if (is_deb) printf "%s%s", (n++ ? "\n" : ""), buf; buf = ""; is_deb = 0 }
            /^[ \t]*$/ { flush(); next }
            /^[ \t]*Types:/ { if ($0 ~ /[: \t]deb([ \t]|$)/) is_deb = 1; $0 = "Types: deb-src" }
            { buf = buf $0 "\n" }
            END { flush() }' \
            /etc/apt/sources.list.d/debian.sources > "$out.tmp"
        [ -s "$out.tmp" ] || { rm -f "$out.tmp"; die "no deb entries in /etc/apt/sources.list.d/debian.sources"; }
        mv "$out.tmp" "$out"
    elif grep -qsE '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list; then
        out=/etc/apt/sources.list.d/slop-src.list
        sed -nE 's/^[[:space:]]*deb([[:space:]])/deb-src\1/p' /etc/apt/sources.list > "$out"
    else
        die "no Debian apt source found to mirror as deb-src"
    fi
    echo "added $out"
    APT_UPDATED=0; apt_update_once
}
check_cjson_patches() {   # $1 = extracted source dir
    local dir=$1 series="$1/debian/patches/series" applied="$1/.pc/applied-patches" p bad=0
    [ -f "$dir/cJSON.c" ] && [ -f "$dir/cJSON.h" ] || die "$dir has no cJSON.c/cJSON.h"
    [ -f "$series" ] || die "$dir is not a Debian source tree (no debian/patches/series): refusing to build from unpatched upstream cJSON"
    while read -r p _; do
        case "$p" in ''|'#'*) continue ;; esac
        if ! grep -qxF "$p" "$applied" 2>/dev/null; then
            echo "!!! cJSON patch NOT applied: $p" >&2; bad=1
        fi
    done < "$series"
    [ "$bad" = 0 ] || die "Debian patches missing in $dir (see .pc/applied-patches); re-extract with apt-get source cjson or dpkg-source -x"
    echo "$(grep -cvE '^[[:space:]]*(#|$)' "$series") Debian patches applied in $dir"
}
step "cJSON source"
if [ -n "${CJSON_SRC:-}" ]; then
    CJSON_DIR=$(cd "$CJSON_SRC" && pwd)
else
    CACHE="$ROOT/.cache/cjson"
    find_cached() {
        [ -d "$CACHE" ] || return 0
        find "$CACHE" -mindepth 1 -maxdepth 1 -type d -name 'cjson-*' | sort -V | tail -n 1
    }
    CJSON_DIR=$(find_cached)
    if [ -z "$CJSON_DIR" ]; then
        has_deb_src || add_deb_src
        mkdir -p "$CACHE"
        if ! (cd "$CACHE" && apt-get source -q cjson); then
            # A deb-src entry whose index was never fetched: update once and retry.
            APT_UPDATED=0; apt_update_once
            retry bash -c "cd \"$CACHE\" && apt-get ${APT_OPTS[*]} source -q cjson" || die "apt-get source cjson failed"
        fi
        CJSON_DIR=$(find_cached)
        [ -n "$CJSON_DIR" ] || die "apt-get source cjson produced no cjson-* directory in $CACHE"
    fi
fi
check_cjson_patches "$CJSON_DIR"

# ----------------------------------------------------------------------- npm
step "npm dependencies"
# npm ci writes node_modules/.package-lock.json: it is the stamp.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    # Playwright browsers never come from npm: the tests use Debian's chromium.
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 retry npm ci --no-audit --no-fund --fetch-retries=4 --fetch-timeout=120000
    touch node_modules/.package-lock.json
else
    echo "node_modules up to date"
fi

# --------------------------------------------------------------------- build
JOBS=${JOBS:-$(nproc)}
MAKE=(make --no-print-directory -f wasm/Makefile -j"$JOBS" CJSON_DIR="$CJSON_DIR")
if wants test; then
    step "native build (ASan+UBSan lib, C tests)"
    "${MAKE[@]}" native
    step "fuzzers (libFuzzer)"
    "${MAKE[@]}" fuzz
fi
if wants bench; then
    step "native release build (-O2 lib, benchmarks)"
    "${MAKE[@]}" release bench
fi
step "wasm build (dist/slop_core.mjs, dist/slop_core.wasm)"
"${MAKE[@]}" wasm
step "wasm gate (wabt)"
"${MAKE[@]}" check

# ---------------------------------------------------------- unpacked extension
# sync_dir SRC DEST [exclude-glob...]: make DEST a copy of SRC (like rsync -a --delete):
# removes stale or excluded entries, copies only files whose content changed.
sync_dir() {
    local src=$1 dest=$2; shift 2
    local f rel g
    excluded() { for g in "$@"; do [[ $rel == $g ]] && return 0; done; return 1; }
    mkdir -p "$dest"
    while IFS= read -r -d '' f; do
        rel=${f#"$dest"/}
        if excluded "$@" || [ ! -e "$src/$rel" ] || { [ -d "$f" ] && [ ! -d "$src/$rel" ]; } \
           || { [ ! -d "$f" ] && [ -d "$src/$rel" ]; }; then
            rm -rf "$f"; echo "  removed ${dest#"$ROOT"/}/$rel"
        fi
    done < <(find "$dest" -mindepth 1 -depth -print0)
    while IFS= read -r -d '' f; do
        rel=${f#"$src"/}
        excluded "$@" && continue
        if [ -d "$f" ]; then mkdir -p "$dest/$rel"
        elif ! cmp -s "$f" "$dest/$rel"; then cp -p "$f" "$dest/$rel"; echo "  ${dest#"$ROOT"/}/$rel"; fi
    done < <(find "$src" -mindepth 1 -print0 | sort -z)
}
step "unpacked extension (build/extension)"
EXT="$ROOT/build/extension"
mkdir -p "$EXT"
for entry in manifest.json extension js-glue dist; do
    if [ -f "$entry" ]; then
        cmp -s "$entry" "$EXT/$entry" || { cp -p "$entry" "$EXT/$entry"; echo "  $entry"; }
    elif [ -d "$entry" ]; then
        sync_dir "$ROOT/$entry" "$EXT/$entry" '*-node.js' '*.d.ts'   # Node-only code and its types stay out
    else
        [ -e "$EXT/$entry" ] && { rm -rf "${EXT:?}/$entry"; echo "  removed $entry"; }
        echo "  ($entry does not exist yet: skipped)"
    fi
done

awk -v a="$START" -v b="$EPOCHREALTIME" 'BEGIN { printf "*** done in %.1f s\n", b - a }'
