#!/usr/bin/env bash
# Runs one benchmark executable in release mode with the real test servers up.
#
#   Scripts/benchmark.sh SyncCoreBenchmark [arguments…]
#
# Benchmarks print ratios (RollingSync versus a baseline measured in the same run), never pass or
# fail on timings. The servers are started as for the tests and stopped afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: benchmark.sh BENCHMARK-TARGET [arguments…]}
shift

Scripts/install-dependencies.sh
if [ "$target" = SyncBenchmark ]; then
    # SyncBenchmark runs SyncCoreBenchmark (the apply and capture rows) and the rollsync binary
    # (section 9) from the same build.
    swift build -c release --product SyncCoreBenchmark
    swift build -c release --product rollsync
fi
exec Scripts/test-servers.sh run swift run -c release "$target" "$@"
