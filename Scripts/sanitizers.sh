#!/usr/bin/env bash
# Runs the tests again under the sanitizers (issue 27): memory errors in the C interop (libssh2,
# libcurl, zlib, SQLite) and data races between the backends' dedicated threads are the failures
# Swift's own checks do not cover.
#
#   Scripts/sanitizers.sh [address|thread]…   # both by default
#
# Called by Scripts/test.sh inside the test servers (it needs their variables: run it alone as
# `Scripts/test-servers.sh run Scripts/sanitizers.sh`). Each sanitizer builds in a folder of its
# own (.build/asan, .build/tsan) and fails on its first report.
#
# - AddressSanitizer: every test but those of `asan_leaves` below, with a sanitized `rollsync` for
#   the end-to-end tests. Leak detection is off: the Swift runtime keeps one-time caches that
#   LeakSanitizer reports.
# - ThreadSanitizer: the suites of the threads and pools: RemoteTransportSupport (the dedicated
#   thread executors), the SFTP, WebDAV and S3 stores (their connection pools), the File store,
#   and the automatic sync. Scripts/tsan-suppressions.txt says why Mutex closures are suppressed.
set -euo pipefail
cd "$(dirname "$0")/.."

# The tests AddressSanitizer leaves to the unsanitized run (Scripts/test.sh runs exactly these, and
# the memory bounds below, before the sanitizers), as a --skip/--filter pattern:
# - the four randomized simulations: pure SQLite and Swift work that ASan slows past their time
#   limits;
# - the randomized simulation of `rollsync` processes (about 40 processes started, killed and
#   restarted per seed, each paying ASan's start-up, over 80 s of the ASan run): what it adds to
#   the in-process suites, which run the same code under ASan, is processes, kills and locks;
# - the suites of long runs of syncs through Swift stores in memory or a local folder (the
#   in-memory and dictionary remotes and the conformance suite's own tests, the failures injected
#   at every remote call of a sync, the requests per sync over up to 1,000 syncs): no C library or
#   pointer of ours that the other suites do not run under ASan.
asan_leaves="ConvergenceSimulationTests|IntegerKeySimulationTests|ReferenceConvergenceSimulationTests|SchemaMigrationSimulationTests"
asan_leaves+="|RandomizedProcessSyncTests"
asan_leaves+="|InMemoryRemoteTests\.|RemoteStoreConformanceTests\.|SyncFaultTests|RoundTripTests"
# The round trips that assert bounded memory run under ASan (their transfers are byte-compared) and
# unsanitized too: shadow memory makes resident-memory measurements meaningless, so only the
# unsanitized run checks the bounds.
memory_bounds="twoHundredFiftySixMegabyteFileRoundTripsWithBoundedMemory|quarterGigabyteRoundTripsByteExactWithBoundedMemory"
memory_bounds+="|largeMultipartRoundTripHasBoundedMemory"
# What Scripts/test.sh runs unsanitized when it runs the sanitizers after.
unsanitized_tests="$asan_leaves|$memory_bounds"
if [ "${1:-}" = "--print-unsanitized-tests" ]; then
    echo "$unsanitized_tests"
    exit 0
fi

sanitizers=("$@")
mapfile -t build_options < <(Scripts/test-build-options.sh)
[ ${#sanitizers[@]} -gt 0 ] || sanitizers=(address thread)

# Runs a build, printing its output without the progress lines and ld.gold's notes about the
# sanitizers' symbols, and fails as the build did.
quiet_build() {
    local log status=0
    log=$(mktemp)
    "$@" > "$log" 2>&1 || status=$?
    grep -v -e "^\[[0-9]*/[0-9]*\]" -e "Cannot export local symbol" "$log" || true
    rm -f "$log"
    return "$status"
}

for sanitizer in "${sanitizers[@]}"; do
    case $sanitizer in
    address)
        folder=.build/asan
        # Every test target (the benchmarks are left out of the build).
        test_targets=$(env -u ROLLSYNC_TEST_TARGETS swift package dump-package | python3 -c 'import json, sys
print(" ".join(target["name"] for target in json.load(sys.stdin)["targets"] if target["type"] == "test"))')
        arguments=(--skip "$asan_leaves")
        export ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=1
        # The SFTP cut-and-cancel stress test (the conditions of the heap corruption once seen):
        # 300 rounds here, 20 in the ordinary run.
        export ROLLSYNC_SFTP_STRESS_ROUNDS=300
        ;;
    thread)
        folder=.build/tsan
        # Five test targets whole, and the automatic sync's tests in SyncOperationsTests. The build
        # leaves out the command-line tool, the benchmarks and the other test targets.
        whole_targets=(RemoteTransportSupportTests SFTPRemoteTests WebDAVRemoteTests S3RemoteTests FileRemoteTests)
        test_targets="${whole_targets[*]} SyncOperationsTests"
        arguments=(--filter "$(IFS='|'; echo "${whole_targets[*]}")|AutomaticSync")
        export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions='$PWD/Scripts/tsan-suppressions.txt'"
        # 100 rounds of the stress test (300 under ASan), and the tests that run on every WebDAV or
        # S3 server on one of each: the races TSan finds are in our threads and pools, whatever the
        # server, and the other runs test every server.
        export ROLLSYNC_SFTP_STRESS_ROUNDS=100 ROLLSYNC_TEST_ONE_SERVER_PER_BACKEND=1
        ;;
    *)
        echo "error: unknown sanitizer '$sanitizer' (address or thread)" >&2
        exit 2
        ;;
    esac
    echo "== $sanitizer sanitizer: building in $folder"
    start=$(date +%s)
    # Package.swift declares only these test targets and what they need.
    ROLLSYNC_TEST_TARGETS=$test_targets quiet_build swift build --build-tests --sanitize="$sanitizer" --build-path "$folder" "${build_options[@]}" \
        || { echo "error: the $sanitizer-sanitized build failed" >&2; exit 1; }
    built=$(date +%s)
    echo "== $sanitizer sanitizer: running the tests"
    # Swift's backtracer would only repeat the sanitizer's report.
    ROLLSYNC_TEST_TARGETS=$test_targets SWIFT_BACKTRACE=enable=no swift test --skip-build --sanitize="$sanitizer" --build-path "$folder" "${arguments[@]}"
    echo "== $sanitizer sanitizer: no findings (build $((built - start)) s, tests $(($(date +%s) - built)) s)"
done
