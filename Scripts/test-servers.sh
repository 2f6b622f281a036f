#!/usr/bin/env bash
# Starts or stops every real test server on loopback.
#
#   Scripts/test-servers.sh start   # starts each server in Scripts/test-servers.d, writes .test-servers/env
#   Scripts/test-servers.sh stop    # stops them all (safe to run when nothing is running)
#
# Each Scripts/test-servers.d/NAME.sh defines `start_NAME` and `stop_NAME`. A start function runs
# its server in the foreground of a background job on 127.0.0.1, records the pid in $STATE/NAME.pid,
# and appends the environment variables the tests read (ROLLSYNC_TEST_*) to $STATE/env.
set -euo pipefail
cd "$(dirname "$0")/.."
export STATE="$PWD/.test-servers"
action=${1:?usage: test-servers.sh start|stop}

# shellcheck source=Scripts/test-servers-lib.sh
source Scripts/test-servers-lib.sh

shopt -s nullglob
servers=()
for script in Scripts/test-servers.d/*.sh; do
    # shellcheck source=/dev/null
    source "$script"
    servers+=("$(basename "$script" .sh)")
done

case "$action" in
start)
    rm -rf "$STATE"
    mkdir -p "$STATE"
    : > "$STATE/env"
    for name in "${servers[@]}"; do
        echo "Starting test server: $name"
        "start_$name"
    done
    ;;
stop)
    for name in "${servers[@]}"; do
        "stop_$name" || true
    done
    ;;
*)
    echo "usage: test-servers.sh start|stop" >&2
    exit 2
    ;;
esac
