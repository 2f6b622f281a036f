#!/usr/bin/env bash
# Fuzzes every parser that reads untrusted bytes with libFuzzer, under AddressSanitizer (the
# targets are in Fuzz/Sources; see Fuzz/README.md).
#
#   Scripts/fuzz.sh                      # what CI runs: every target 15 s
#   Scripts/fuzz.sh SECONDS [TARGET…]    # longer runs, of chosen targets
#   Scripts/fuzz.sh --write-seeds        # regenerate Fuzz/Corpus/*/seed-* after a format change
#
# Targets run one per core at a time. For each target it first checks that every seed of
# Fuzz/Corpus/TARGET is accepted (a stale seed fails), replays every input of
# Fuzz/Regressions/TARGET (inputs that once crashed, hung or over-allocated), then fuzzes from the
# seeds with a fixed -seed. A finding (crash, trap, input slower than 1 s, allocation above
# 512 MiB) fails the script with the input saved under .build/fuzz/findings/; once fixed, add it
# to Fuzz/Regressions/TARGET. Inputs the fuzzer finds interesting are kept in
# .build/fuzz/corpus/TARGET (not committed) and reused by later runs.
set -euo pipefail
cd "$(dirname "$0")/.."
# The whole package: ROLLSYNC_TEST_TARGETS, which leaves test targets out, is for Scripts/sanitizers.sh.
unset ROLLSYNC_TEST_TARGETS

build=.build/fuzz
# Built in a folder of its own: the fuzz target exists only with ROLLSYNC_FUZZ=1 (Package.swift).
# -sanitize=fuzzer is passed to every Swift compilation (SwiftPM's --sanitize=fuzzer only links
# libFuzzer, leaving the parsers without the coverage instrumentation that guides the fuzzer).
log=$(mktemp)
status=0
mapfile -t build_options < <(Scripts/test-build-options.sh)
ROLLSYNC_FUZZ=1 swift build --build-path "$build" "${build_options[@]}" --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address \
    --product rollsync-fuzz > "$log" 2>&1 || status=$?
grep -v -e "^\[" -e "Cannot export local symbol" "$log" || true
rm -f "$log"
[ "$status" -eq 0 ] || { echo "error: the fuzz build failed" >&2; exit 1; }
binary="$build/debug/rollsync-fuzz"

if [ "${1:-}" = "--write-seeds" ]; then
    ROLLSYNC_FUZZ_WRITE_SEEDS="$PWD/Fuzz/Corpus" "$binary"
    echo "seeds written to Fuzz/Corpus"
    exit 0
fi

seconds=${1:-15}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "usage: Scripts/fuzz.sh [SECONDS [TARGET…]] | --write-seeds" >&2; exit 2; }
shift || true
if [ $# -gt 0 ]; then targets=("$@"); else
    mapfile -t targets < <(ls Fuzz/Corpus)
fi
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
# A finding is reported by ASan and libFuzzer; Swift's own backtracer would only add noise.
export SWIFT_BACKTRACE=enable=no
mkdir -p "$build/findings"
for target in "${targets[@]}"; do
    [ -d "Fuzz/Corpus/$target" ] || { echo "error: no corpus for the fuzz target '$target'" >&2; exit 1; }
done

# Checks, replays and fuzzes one target, writing its line of the summary to $build/TARGET.summary;
# run as a job of its own, so that it exits on a finding.
fuzz_target() {
    local target=$1
    export ROLLSYNC_FUZZ_TARGET=$target
    local limits=(-timeout=1 -rss_limit_mb=2048 -malloc_limit_mb=512 -artifact_prefix="$build/findings/$target-")
    # 1. Every seed is accepted.
    ROLLSYNC_FUZZ_EXPECT_VALID=1 "$binary" "${limits[@]}" -runs=0 "Fuzz/Corpus/$target" > "$build/$target.seeds.log" 2>&1 \
        || { cat "$build/$target.seeds.log" >&2; echo "error: $target refuses one of its seeds" >&2; exit 1; }
    # 2. Earlier findings stay fixed.
    if compgen -G "Fuzz/Regressions/$target/*" > /dev/null; then
        "$binary" "${limits[@]}" Fuzz/Regressions/"$target"/* > "$build/$target.regressions.log" 2>&1 \
            || { tail -40 "$build/$target.regressions.log" >&2; echo "error: a regression input of $target fails again" >&2; exit 1; }
    fi
    # 3. Fuzz.
    mkdir -p "$build/corpus/$target"
    # -max_len above the largest seed (a change-set record longer than the reader's 64 KiB buffer).
    if ! "$binary" "${limits[@]}" -max_len=131072 -seed=1 -max_total_time="$seconds" -print_final_stats=1 \
        "$build/corpus/$target" "Fuzz/Corpus/$target" > "$build/$target.log" 2>&1; then
        tail -60 "$build/$target.log" >&2
        echo "error: fuzzing $target found a problem; the input is in $build/findings/" >&2
        exit 1
    fi
    local runs coverage features
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/$target.log")
    coverage=$(grep -o 'cov: [0-9]*' "$build/$target.log" | tail -1 | cut -d' ' -f2 || true)
    features=$(grep -o 'ft: [0-9]*' "$build/$target.log" | tail -1 | cut -d' ' -f2 || true)
    if [ -z "$coverage" ]; then
        echo "error: $target reports no coverage: the parsers are not instrumented" >&2
        exit 1
    fi
    printf '%-24s %10s inputs  %6s edges  %6s features  %s s\n' "$target" "$runs" "$coverage" "$features" "$seconds" \
        > "$build/$target.summary"
}

# One target per core at a time (at most ROLLSYNC_FUZZ_JOBS, by default every core): each fuzzer
# is single-threaded, and a target gets the same -max_total_time of its own core whatever runs
# beside it. Fuzzers still running when the script ends (a finding, a signal) are stopped.
slots=${ROLLSYNC_FUZZ_JOBS:-$(nproc)}
[[ $slots =~ ^[1-9][0-9]*$ ]] || { echo "error: ROLLSYNC_FUZZ_JOBS must be a whole number of at least 1" >&2; exit 2; }
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
running=0
failed=0
for target in "${targets[@]}"; do
    rm -f "$build/$target.summary"
    if [ "$running" -ge "$slots" ]; then
        wait -n || failed=1
        running=$((running - 1))
    fi
    fuzz_target "$target" &
    running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
    wait -n || failed=1
    running=$((running - 1))
done
[ "$failed" -eq 0 ] || exit 1
echo "fuzzing: no findings"
for target in "${targets[@]}"; do
    printf '  %s' "$(cat "$build/$target.summary")"
    echo
done
