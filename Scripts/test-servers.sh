#!/usr/bin/env bash
# Starts or stops every real test server on loopback.
#
#   Scripts/test-servers.sh start [NAME…]
#                                   # starts each server in Scripts/test-servers.d (or only NAME…,
#                                   # e.g. `start s3`), writes .test-servers/env
#   Scripts/test-servers.sh stop    # stops them all (safe to run when nothing is running)
#   Scripts/test-servers.sh run COMMAND [ARGUMENTS…]
#                                   # starts them, runs COMMAND with .test-servers/env exported,
#                                   # stops them however COMMAND ends, and exits with its status
#
# Each Scripts/test-servers.d/NAME.sh defines `start_NAME` and `stop_NAME`. A start function runs
# its server in the foreground of a background job on 127.0.0.1, records the pid in $STATE/NAME.pid,
# and appends the environment variables the tests read (ROLLSYNC_TEST_*) to $STATE/env.
set -euo pipefail
cd "$(dirname "$0")/.."
export STATE="$PWD/.test-servers"
action=${1:?usage: test-servers.sh start|stop|run COMMAND…}

# shellcheck source=Scripts/test-servers-lib.sh
source Scripts/test-servers-lib.sh

shopt -s nullglob
servers=()
for script in Scripts/test-servers.d/*.sh; do
    # shellcheck source=/dev/null
    source "$script"
    servers+=("$(basename "$script" .sh)")
done
all_servers=("${servers[@]}")

# ROLLSYNC_TEST_SERVERS="s3 apache" (or `start s3 apache`) starts only those servers; tests of
# the others then skip (or, with ROLLSYNC_REQUIRE_TEST_SERVERS=1, fail).
if [ "$action" = start ] && [ $# -gt 1 ]; then
    ROLLSYNC_TEST_SERVERS="${*:2}"
fi
if [ -n "${ROLLSYNC_TEST_SERVERS:-}" ]; then
    read -r -a servers <<< "$ROLLSYNC_TEST_SERVERS"
fi

start_all() {
    # Servers a previous `start` left running would hold the ports and lose their pid files.
    for name in "${all_servers[@]}"; do
        "stop_$name" || true
    done
    rm -rf "$STATE"
    mkdir -p "$STATE"
    : > "$STATE/env"
    for name in "${servers[@]}"; do
        echo "Starting test server: $name"
        "start_$name"
    done
}

stop_all() {
    for name in "${servers[@]}"; do
        "stop_$name" || true
    done
}

case "$action" in
start)
    start_all
    ;;
stop)
    stop_all
    ;;
run)
    shift
    [ $# -gt 0 ] || { echo "usage: test-servers.sh run COMMAND [ARGUMENTS…]" >&2; exit 2; }
    trap stop_all EXIT
    start_all
    set -a
    # shellcheck source=/dev/null
    source "$STATE/env"
    set +a
    "$@"
    ;;
*)
    echo "usage: test-servers.sh start|stop|run COMMAND…" >&2
    exit 2
    ;;
esac
