#!/usr/bin/env bash
# The README's test command: installs what the tests need, starts the real test servers on
# loopback, builds with zero warnings in our own code, runs every test, and stops the servers.
#
# With CI=true (as in .ci/run), server-backed suites must run: ROLLSYNC_REQUIRE_TEST_SERVERS=1
# turns a missing server into a test failure instead of a skip.
set -euo pipefail
cd "$(dirname "$0")/.."

Scripts/install-dependencies.sh

trap 'Scripts/test-servers.sh stop' EXIT
Scripts/test-servers.sh start
set -a
# shellcheck source=/dev/null
source .test-servers/env
set +a
if [ "${CI:-}" = "true" ]; then
    export ROLLSYNC_REQUIRE_TEST_SERVERS=1
fi

swift build --build-tests 2>&1 | tee .test-servers/build.log
if grep -E "^$PWD/(Sources|Tests|Benchmarks)/[^:]+:[0-9]+:[0-9]+: warning:" .test-servers/build.log; then
    echo "error: the build has warnings in RollingSync's own code (zero are allowed)" >&2
    exit 1
fi

swift test --skip-build "$@"
