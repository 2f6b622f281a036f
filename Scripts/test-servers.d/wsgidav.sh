# wsgidav (PyPI, in a virtual environment) with cheroot on 127.0.0.1: the second, RFC-faithful WebDAV
# server of the WebDAV tests. Sourced by Scripts/test-servers.sh, which sets $STATE.
#
# The venv lives in "$STATE/venv" (reused from "$WSGIDAV_VENV_CACHE" when set); the DAV root in
# "$STATE/wsgidav/dav". wsgidav is started from "$STATE/wsgidav" with an explicit --config, so a
# stray wsgidav.yaml in the working directory is never picked up.
#
# Variables written to "$STATE/env": ROLLSYNC_TEST_WEBDAV_WSGIDAV_URL (same user and password as Apache).
# Uses wait_for_http and stop_pid from Scripts/test-servers-lib.sh.

WSGIDAV_PORT=${ROLLSYNC_WSGIDAV_PORT:-18082}

start_wsgidav() {
    local dir="$STATE/wsgidav" venv="${WSGIDAV_VENV_CACHE:-$STATE/venv}"
    local user=${WEBDAV_TEST_USER:-davuser} password=${WEBDAV_TEST_PASSWORD:-davpass-test}
    mkdir -p "$dir/dav"
    if [ ! -x "$venv/bin/wsgidav" ]; then
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check wsgidav cheroot
    fi
    cat > "$dir/wsgidav.yaml" <<CONF
host: 127.0.0.1
port: $WSGIDAV_PORT
server: cheroot
provider_mapping: { "/": "$dir/dav" }
http_authenticator: { domain_controller: null, accept_basic: true, accept_digest: true, default_to_digest: false }
simple_dc: { user_mapping: { "*": { "$user": { password: "$password" } } } }
lock_storage: true
verbose: 1
CONF
    (cd "$dir" && exec "$venv/bin/wsgidav" --config "$dir/wsgidav.yaml" > "$dir/server.log" 2>&1) &
    echo $! > "$STATE/wsgidav.pid"
    wait_for_http "http://127.0.0.1:$WSGIDAV_PORT/" "$user" "$password"
    echo "ROLLSYNC_TEST_WEBDAV_WSGIDAV_URL=webdav://127.0.0.1:$WSGIDAV_PORT/" >> "$STATE/env"
}

stop_wsgidav() {
    [ -f "$STATE/wsgidav.pid" ] || return 0
    stop_pid "$(cat "$STATE/wsgidav.pid")"
    rm -f "$STATE/wsgidav.pid"
}
