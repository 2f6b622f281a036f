#!/usr/bin/env bash
# Helpers shared by the test-server scripts in Scripts/test-servers.d; Scripts/test-servers.sh
# sources this file before them. Every wait is a bounded poll, never a fixed sleep.

# free_port PORT: prints PORT, or the first port above it that nothing on 127.0.0.1 listens on.
free_port() {
    local port=$1
    while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
        port=$((port + 1))
    done
    echo "$port"
}

# wait_for_port PORT PID: waits (at most ~10 s) until 127.0.0.1:PORT accepts connections; fails
# early if process PID exits.
wait_for_port() {
    local port=$1 pid=$2 attempt
    for attempt in $(seq 1 200); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}

# wait_for_http URL USER PASSWORD: polls (at most ~10 s) until the server answers OPTIONS.
wait_for_http() {
    local url=$1 user=$2 password=$3 attempt
    for attempt in $(seq 1 100); do
        if curl -s -o /dev/null --max-time 1 -X OPTIONS --netrc-file <(printf 'machine 127.0.0.1 login %s password %s\n' "$user" "$password") "$url"; then
            return 0
        fi
        sleep 0.1
    done
    echo "error: $url did not answer within 10 s" >&2
    return 1
}

# stop_pid PID: SIGTERM, then waits (at most ~15 s, Apache takes a few seconds to stop its
# workers) until the process is gone; SIGKILL for it and its children if it is still there.
stop_pid() {
    local pid=$1 attempt
    kill "$pid" 2>/dev/null || return 0
    for attempt in $(seq 1 150); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    pkill -KILL -P "$pid" 2>/dev/null || true
    kill -KILL "$pid" 2>/dev/null || true
}

# await_server NAME PORT [USER PASSWORD] -- LOG…: waits until the server whose pid is in
# $STATE/NAME.pid accepts connections on 127.0.0.1:PORT (with USER and PASSWORD: answers HTTP
# OPTIONS there) and is still running; otherwise prints the LOG files and returns 1.
await_server() {
    local name=$1 port=$2 pid ready=false
    shift 2
    pid=$(cat "$STATE/$name.pid")
    if [ "${1:-}" != "--" ]; then
        wait_for_http "http://127.0.0.1:$port/" "$1" "$2" && ready=true
        shift 2
    else
        wait_for_port "$port" "$pid" && ready=true
    fi
    shift
    if ! $ready || ! kill -0 "$pid" 2>/dev/null; then
        echo "error: $name did not start on 127.0.0.1:$port (is another server there?); its logs:" >&2
        cat "$@" >&2
        return 1
    fi
    echo "$name listening on 127.0.0.1:$port (pid $pid)"
}

# stop_recorded NAME: stops the process whose pid is in $STATE/NAME.pid, if any, and forgets it.
stop_recorded() {
    [ -f "$STATE/$1.pid" ] || return 0
    stop_pid "$(cat "$STATE/$1.pid")"
    rm -f "$STATE/$1.pid"
}

# dav_server_state DIR USER PASSWORD FOLDER…: creates DIR, the FOLDERs inside it, and DIR/htpasswd
# with USER and PASSWORD (Basic auth). As root, the FOLDERs go to www-data, the user the WebDAV
# servers switch to.
dav_server_state() {
    local dir=$1 user=$2 password=$3
    shift 3
    mkdir -p "$dir"
    (cd "$dir" && mkdir -p "$@")
    htpasswd -bc "$dir/htpasswd" "$user" "$password" 2>/dev/null
    chmod 644 "$dir/htpasswd"
    if [ "$(id -u)" -eq 0 ]; then
        (cd "$dir" && chown -R www-data:www-data "$@")
    fi
}
