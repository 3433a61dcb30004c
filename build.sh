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
#     firefox    extension, and Firefox ESR for the demo           (npm start -- --firefox)
#     test       extension + ASan/UBSan lib and C tests + fuzzers, Chromium and Firefox ESR (npm test)
#     bench      extension + the -O2 lib and native benchmarks, Chromium   (npm run bench)
#     all        everything above
#
# Output: one line per step and a summary ("*** done in 0.3 s (nothing to rebuild)"); what the
# tools print (apt, npm, make, the compilers) goes to build/build.log. A failing step prints the
# last 40 lines of its output, its first error line, and the log's path, and exits non-zero.
#
# Environment: CJSON_SRC=<extracted Debian cjson source dir> skips step 2's download.
#              JOBS=<n> parallel make jobs (default: nproc).
#              VERBOSE=1 prints everything on the terminal as it comes (every compiler line,
#              every file copied into build/extension).
set -Eeuo pipefail   # -E: the ERR trap below also sees failures inside functions

PURPOSE=${1:-all}
case "$PURPOSE" in all|start|firefox|test|bench|extension) ;; *) echo "usage: build.sh [all|start|firefox|test|bench|extension]" >&2; exit 2 ;; esac
wants() { [ "$PURPOSE" = all ] || [[ " $* " == *" $PURPOSE "* ]]; }

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$ROOT"
START=$EPOCHREALTIME
export DEBIAN_FRONTEND=noninteractive
export NODE_PATH=/usr/share/nodejs   # Debian's emcc needs acorn from here

# ------------------------------------------------------------------- output
VERBOSE=${VERBOSE:-0}
verbose() { [ -n "$VERBOSE" ] && [ "$VERBOSE" != 0 ]; }
LOG="$ROOT/build/build.log"
mkdir -p "$ROOT/build"
: > "$LOG"
exec 3>&2 4>&1            # the terminal, whatever a step's output is redirected to
STEP="" STEP_AT=0 FAIL_MSG="" RUNNING=""
BUILT=()                  # what this run changed, for the summary

step()   { STEP=$*; printf '*** %s\n' "$*" | tee -a "$LOG" >&4; STEP_AT=$(stat -c %s "$LOG"); }
say()    { printf '%s\n' "$*" | tee -a "$LOG" >&4; }      # the terminal, always
warn()   { printf '%s\n' "$*" | tee -a "$LOG" >&3; }
detail() { if verbose; then printf '%s\n' "$*" >&4; else printf '%s\n' "$*" >>"$LOG"; fi; }
quiet()  { RUNNING="$*"; if verbose; then "$@"; else "$@" >>"$LOG" 2>&1; fi; }   # its output: the log
die()    { FAIL_MSG=$*; exit 1; }

on_err() {   # $? $LINENO $BASH_COMMAND of the first command that failed
    [ -n "$FAIL_MSG" ] && return 0
    if [[ $3 == '"$@"'* ]]; then FAIL_MSG="failed (exit $1): $RUNNING"   # run through quiet()
    else FAIL_MSG="failed (exit $1) at line $2: $3"; fi
}
trap 'on_err $? $LINENO "$BASH_COMMAND"' ERR
on_exit() {
    local rc=$? n first
    set +e; trap - ERR
    [ "$rc" = 0 ] && return 0
    if [ "$rc" = 130 ]; then printf '\n!!! build.sh: interrupted\n' >&3; return; fi
    if ! verbose && [ -s "$LOG" ]; then
        # This step's output only: its last 40 lines, and its first error line if it is above them.
        n=$(tail -c +$((STEP_AT + 1)) "$LOG" | wc -l)
        if [ "$n" -gt 0 ]; then
            printf '\n--- step "%s" failed; its last lines:\n' "$STEP" >&3
            tail -c +$((STEP_AT + 1)) "$LOG" | tail -n 40 >&3
            if [ "$n" -gt 40 ]; then
                first=$(tail -c +$((STEP_AT + 1)) "$LOG" | head -n $((n - 40)) \
                        | grep -m1 -E '(^|[[:space:]:])(fatal )?error:|^E: |ERR!')
                [ -n "$first" ] && printf -- '--- first error of the step:\n%s\n' "$first" >&3
            fi
        fi
    fi
    printf '\n!!! build.sh: %s\n' "${FAIL_MSG:-failed (exit $rc)}" >&3
    verbose || printf '    full log: %s\n' "$LOG" >&3
    printf '\n' >&3
}
trap on_exit EXIT

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else die "needs root for: $*"; fi; }

# Registries time out now and then (a CI run once died on one npm idle timeout):
# each download is retried with a growing pause before the build gives up.
retry() {
    local attempt=1 max=4
    until "$@"; do
        [ "$attempt" -ge "$max" ] && { FAIL_MSG="failed $max times: $*"; return 1; }
        warn "--- attempt $attempt of $max failed: $*; again in $((attempt * 10)) s"
        sleep $((attempt * 10)); attempt=$((attempt + 1))
    done
}
APT_OPTS=(-o Acquire::Retries=3)

APT_UPDATED=0
apt_update_once() {
    if [ "$APT_UPDATED" = 0 ]; then quiet retry as_root apt-get "${APT_OPTS[@]}" update -qq; APT_UPDATED=1; fi
}

# ------------------------------------------------------------------ packages
step "packages"
# The core's toolchain always (dpkg-dev: apt-get source); the browsers and the fuzzing
# compiler only for what uses them.
PACKAGES=(emscripten wabt dpkg-dev gcc make)
wants start test bench && PACKAGES+=(chromium)
wants test && PACKAGES+=(clang libclang-rt-14-dev)
wants test firefox && PACKAGES+=(firefox-esr)
missing=()
# One dpkg-query for all of them (a no-op build is mostly process start-ups). It exits 1
# when any of them is unknown to dpkg, as on a fresh machine: that is an answer, not a failure.
installed=" $(dpkg-query -W -f='${Package}:${db:Status-Status} ' "${PACKAGES[@]}" 2>/dev/null || true) "
for p in "${PACKAGES[@]}"; do
    [[ $installed == *" $p:installed "* ]] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    say "  installing: ${missing[*]}"
    apt_update_once
    quiet retry as_root apt-get "${APT_OPTS[@]}" install -y -q "${missing[@]}"
    BUILT+=("packages")
else
    detail "all present"
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
    say "  added $out"
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
apt_source_cjson() { (cd "$CACHE" && apt-get "${APT_OPTS[@]}" source -q cjson); }
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
        say "  apt-get source cjson"
        has_deb_src || add_deb_src
        mkdir -p "$CACHE"
        if ! quiet apt_source_cjson; then
            # A deb-src entry whose index was never fetched: update once and retry.
            APT_UPDATED=0; apt_update_once
            quiet retry apt_source_cjson || die "apt-get source cjson failed"
        fi
        CJSON_DIR=$(find_cached)
        [ -n "$CJSON_DIR" ] || die "apt-get source cjson produced no cjson-* directory in $CACHE"
        BUILT+=("cJSON source")
    fi
fi
quiet check_cjson_patches "$CJSON_DIR"

# ----------------------------------------------------------------------- npm
step "npm dependencies"
# npm ci writes node_modules/.package-lock.json: it is the stamp.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    # Playwright browsers never come from npm: the tests use Debian's chromium.
    say "  npm ci"
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 quiet retry npm ci --no-audit --no-fund --fetch-retries=4 --fetch-timeout=120000
    touch node_modules/.package-lock.json
    BUILT+=("node_modules")
else
    detail "node_modules up to date"
fi

# --------------------------------------------------------------------- build
JOBS=${JOBS:-$(nproc)}
MAKE=(make --no-print-directory -f wasm/Makefile -j"$JOBS" CJSON_DIR="$CJSON_DIR")
# build WHAT TARGET...: make TARGET... (its output in the log, or on the terminal with VERBOSE=1);
# WHAT goes into the summary when make did more than say that everything is up to date.
build() {
    local what=$1 at rc=0; shift
    at=$(stat -c %s "$LOG")
    if verbose; then "${MAKE[@]}" "$@" 2>&1 | tee -a "$LOG" || rc=$?; else "${MAKE[@]}" "$@" >>"$LOG" 2>&1 || rc=$?; fi
    [ "$rc" = 0 ] || { FAIL_MSG="make $* failed (exit $rc)"; exit "$rc"; }
    if tail -c +$((at + 1)) "$LOG" | grep -qvE "^make(\[[0-9]+\])?: (Nothing to be done for|'.*' is up to date)"; then
        BUILT+=("$what")
    fi
}
# start and extension build only what the extension needs: the wasm core, its gate, build/extension.
if wants test; then
    step "native build (ASan+UBSan lib, C tests)"
    build "native lib and C tests" native
    step "fuzzers (libFuzzer)"
    build "fuzzers" fuzz
fi
if wants bench; then
    step "native release build (-O2 lib, benchmarks)"
    build "release lib and benchmarks" release bench
fi
step "wasm build (dist/slop_core.mjs, dist/slop_core.wasm)"
build "wasm core" wasm
step "wasm gate (wabt)"
build "wabt gate" check

# ---------------------------------------------------------- unpacked extension
# sync_dir SRC DEST [exclude-glob...]: make DEST a copy of SRC (like rsync -a --delete):
# removes stale or excluded entries, copies only files whose content changed (counted in
# UPDATED and REMOVED; each one listed with VERBOSE=1, in the log otherwise).
UPDATED=0 REMOVED=0
sync_dir() {
    local src=$1 dest=$2; shift 2
    local f rel g
    excluded() { for g in "$@"; do [[ $rel == $g ]] && return 0; done; return 1; }
    mkdir -p "$dest"
    while IFS= read -r -d '' f; do
        rel=${f#"$dest"/}
        if excluded "$@" || [ ! -e "$src/$rel" ] || { [ -d "$f" ] && [ ! -d "$src/$rel" ]; } \
           || { [ ! -d "$f" ] && [ -d "$src/$rel" ]; }; then
            rm -rf "$f"; detail "  removed ${dest#"$ROOT"/}/$rel"; REMOVED=$((REMOVED + 1))
        fi
    done < <(find "$dest" -mindepth 1 -depth -print0)
    while IFS= read -r -d '' f; do
        rel=${f#"$src"/}
        excluded "$@" && continue
        # cp -p keeps the time stamp: the same time (to the nanosecond) is the same file, with no
        # process started per file; a different one is compared byte by byte.
        if [ -d "$f" ]; then [ -d "$dest/$rel" ] || mkdir -p "$dest/$rel"
        elif [ -e "$dest/$rel" ] && ! [ "$f" -nt "$dest/$rel" ] && ! [ "$f" -ot "$dest/$rel" ]; then continue
        elif ! cmp -s "$f" "$dest/$rel"; then
            cp -p "$f" "$dest/$rel"; detail "  ${dest#"$ROOT"/}/$rel"; UPDATED=$((UPDATED + 1))
        else
            touch -r "$f" "$dest/$rel"   # the same bytes: next time the time stamp says so
        fi
    done < <(find "$src" -mindepth 1 -print0 | sort -z)
}
step "unpacked extension (build/extension)"
EXT="$ROOT/build/extension"
mkdir -p "$EXT"
for entry in manifest.json extension js-glue dist; do
    if [ -f "$entry" ]; then
        cmp -s "$entry" "$EXT/$entry" || { cp -p "$entry" "$EXT/$entry"; detail "  $entry"; UPDATED=$((UPDATED + 1)); }
    elif [ -d "$entry" ]; then
        sync_dir "$ROOT/$entry" "$EXT/$entry" node 'node/*' '*.d.ts'   # js-glue/node/ (Node-only) and the types stay out
    else
        [ -e "$EXT/$entry" ] && { rm -rf "${EXT:?}/$entry"; detail "  removed $entry"; REMOVED=$((REMOVED + 1)); }
        say "  ($entry does not exist yet: skipped)"
    fi
done
# vendor/: the npm libraries the Cost tab loads (pinned in package.json), as '/vendor/<name>/...'
# from the extension's root: only the ES modules it imports, and each one's licence.
# sync_files SRC DEST REL...: make DEST hold exactly the files REL of SRC (as sync_dir does for a
# whole folder: stale files removed, a file copied only when its content changed).
sync_files() {
    local src=$1 dest=$2; shift 2
    local f rel keep=" $* "
    mkdir -p "$dest"
    while IFS= read -r -d '' f; do
        rel=${f#"$dest"/}
        if { [ -d "$f" ] && [[ $keep != *" $rel/"* ]]; } || { [ ! -d "$f" ] && [[ $keep != *" $rel "* ]]; }; then
            rm -rf "$f"; detail "  removed ${dest#"$ROOT"/}/$rel"; REMOVED=$((REMOVED + 1))
        fi
    done < <(find "$dest" -mindepth 1 -depth -print0)
    for rel in "$@"; do
        f=$src/$rel
        [ -f "$f" ] || die "vendor: $f is missing (npm ci?)"
        [[ $rel != */* ]] || [ -d "$dest/${rel%/*}" ] || mkdir -p "$dest/${rel%/*}"
        if [ -e "$dest/$rel" ] && ! [ "$f" -nt "$dest/$rel" ] && ! [ "$f" -ot "$dest/$rel" ]; then continue
        elif ! cmp -s "$f" "$dest/$rel"; then
            cp -p "$f" "$dest/$rel"; detail "  ${dest#"$ROOT"/}/$rel"; UPDATED=$((UPDATED + 1))
        else
            touch -r "$f" "$dest/$rel"
        fi
    done
}
NM="$ROOT/node_modules"
# gpt-tokenizer 4.0.0: esm/encoding/o200k_base.js and what it imports, directly or not (the list
# changes with the version: a missing file fails the Cost tab's end-to-end test).
sync_files "$NM/gpt-tokenizer" "$EXT/vendor/gpt-tokenizer" LICENSE \
    esm/encoding/o200k_base.js esm/bpeRanks/o200k_base.js esm/BytePairEncodingCore.js esm/GptEncoding.js \
    esm/_virtual/_rolldown/runtime.js esm/constants.js esm/functionCalling.js esm/mapping.js esm/modelParams.js \
    esm/modelsChatEnabled.gen.js esm/modelsMap.js esm/specialTokens.js esm/utfUtil.js esm/util.js \
    esm/encodingParams/constants.js esm/encodingParams/cl100k_base.js esm/encodingParams/o200k_base.js \
    esm/encodingParams/o200k_harmony.js esm/encodingParams/p50k_base.js esm/encodingParams/p50k_edit.js \
    esm/encodingParams/r50k_base.js
# d3-hierarchy 3.1.2: its src/ (ES modules; index.js)
d3_files=(LICENSE)
for f in "$NM"/d3-hierarchy/src/*.js "$NM"/d3-hierarchy/src/*/*.js; do d3_files+=("${f#"$NM"/d3-hierarchy/}"); done
sync_files "$NM/d3-hierarchy" "$EXT/vendor/d3-hierarchy" "${d3_files[@]}"
# uPlot 1.6.32: the ES module and its stylesheet
sync_files "$NM/uplot" "$EXT/vendor/uplot" LICENSE dist/uPlot.esm.js dist/uPlot.min.css
for f in "$EXT"/vendor/*; do   # a library no longer vendored
    case ${f##*/} in gpt-tokenizer|d3-hierarchy|uplot) ;; *) rm -rf "$f"; detail "  removed ${f#"$ROOT"/}"; REMOVED=$((REMOVED + 1)) ;; esac
done
if [ $((UPDATED + REMOVED)) -gt 0 ]; then
    changes="$UPDATED file$([ "$UPDATED" = 1 ] || echo s) updated"
    [ "$REMOVED" = 0 ] || changes+=", $REMOVED removed"
    verbose || say "  $changes"
    BUILT+=("build/extension")
fi

# ------------------------------------------------------------------ summary
if [ ${#BUILT[@]} -eq 0 ]; then
    summary="nothing to rebuild"
else
    printf -v summary '%s, ' "${BUILT[@]}"; summary="updated: ${summary%, }"
fi
awk -v a="$START" -v b="$EPOCHREALTIME" -v s="$summary" 'BEGIN { printf "*** done in %.1f s (%s)\n", b - a, s }' | tee -a "$LOG"
