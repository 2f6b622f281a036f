#!/usr/bin/env bash
# The README's test command: installs what the tests need, starts the real test servers on
# loopback, builds with zero warnings in our own code, runs every test (most under AddressSanitizer,
# the threads' suites again under ThreadSanitizer), fuzzes the parsers, and stops the servers.
#
# With CI=true (as in .ci/run), server-backed suites must run: ROLLSYNC_REQUIRE_TEST_SERVERS=1
# turns a missing server into a test failure instead of a skip.
set -euo pipefail
cd "$(dirname "$0")/.."
# The whole package: ROLLSYNC_TEST_TARGETS, which leaves test targets out, is for Scripts/sanitizers.sh.
unset ROLLSYNC_TEST_TARGETS

# First pass: install, then run this script again inside `test-servers.sh run`, which starts the
# servers, exports their variables, and stops them however the tests end.
if [ "${1:-}" != "--servers-up" ]; then
    Scripts/install-dependencies.sh
    exec Scripts/test-servers.sh run Scripts/test.sh --servers-up "$@"
fi
shift
if [ "${CI:-}" = "true" ]; then
    export ROLLSYNC_REQUIRE_TEST_SERVERS=1
fi

mapfile -t build_options < <(Scripts/test-build-options.sh)
swift build --build-tests "${build_options[@]}" 2>&1 | tee .test-servers/build.log
if grep -E "^$PWD/(Sources|Tests|Benchmarks)/[^:]+:[0-9]+:[0-9]+: warning:" .test-servers/build.log; then
    echo "error: the build has warnings in RollingSync's own code (zero are allowed)" >&2
    exit 1
fi
# The DocC catalogs build without a warning (a link to a symbol that is not public fails).
Scripts/docs.sh .build/docs
# The guide's package wiring resolves in a package of its own, and its first example type-checks
# against the built modules, as an app's would.
Scripts/guide-package.sh

# With arguments (`--filter X`), those tests, unsanitized.
if [ $# -gt 0 ]; then
    swift test --skip-build "$@"
    exit 0
fi

# The whole command (no arguments, as CI runs it) runs every test once unsanitized or under
# AddressSanitizer, which also checks what Swift's own checks cannot (issue 27): unsanitized only
# the tests ASan cannot judge or gains nothing from (Scripts/sanitizers.sh says which), then every
# other test under ASan, the threads' suites again under ThreadSanitizer, and every parser of
# untrusted bytes fuzzed for 15 seconds (Fuzz/README.md).
swift test --skip-build --filter "$(Scripts/sanitizers.sh --print-unsanitized-tests)"
Scripts/sanitizers.sh
Scripts/fuzz.sh
