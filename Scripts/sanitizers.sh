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
# - AddressSanitizer: every suite but the four randomized convergence simulations (pure SQLite and
#   Swift work, which ASan slows past their time limit; they run unsanitized above it), with a
#   sanitized `rollsync` for the end-to-end tests. Leak detection is off: the Swift runtime keeps
#   one-time caches that LeakSanitizer reports.
# - ThreadSanitizer: the suites of the threads and pools: RemoteTransportSupport (the dedicated
#   thread executors), the SFTP, WebDAV and S3 stores (their connection pools), the File store,
#   and the automatic sync. Scripts/tsan-suppressions.txt says why Mutex closures are suppressed.
set -euo pipefail
cd "$(dirname "$0")/.."

# The SFTP cut-and-cancel stress test (the conditions of the heap corruption once seen) runs 300
# rounds under each sanitizer, 20 in the ordinary run.
export ROLLSYNC_SFTP_STRESS_ROUNDS=300

sanitizers=("$@")
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
        arguments=(--skip "ConvergenceSimulationTests|IntegerKeySimulationTests|ReferenceConvergenceSimulationTests|SchemaMigrationSimulationTests")
        export ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=1
        ;;
    thread)
        folder=.build/tsan
        arguments=(--filter "RemoteTransportSupportTests|SFTPRemoteTests|WebDAVRemoteTests|S3RemoteTests|FileRemoteTests|AutomaticSync")
        export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions='$PWD/Scripts/tsan-suppressions.txt'"
        ;;
    *)
        echo "error: unknown sanitizer '$sanitizer' (address or thread)" >&2
        exit 2
        ;;
    esac
    echo "== $sanitizer sanitizer: building in $folder"
    start=$(date +%s)
    quiet_build swift build --build-tests --sanitize="$sanitizer" --build-path "$folder" \
        || { echo "error: the $sanitizer-sanitized build failed" >&2; exit 1; }
    built=$(date +%s)
    echo "== $sanitizer sanitizer: running the tests"
    # Swift's backtracer would only repeat the sanitizer's report.
    SWIFT_BACKTRACE=enable=no swift test --skip-build --sanitize="$sanitizer" --build-path "$folder" "${arguments[@]}"
    echo "== $sanitizer sanitizer: no findings (build $((built - start)) s, tests $(($(date +%s) - built)) s)"
done
