# An SFTP server that answers generic failures (status 4) where OpenSSH says "no such file", and
# moves a file renamed onto a directory into it (Scripts/sftp-generic-failures-server.py, on
# Debian's python3-paramiko), on 127.0.0.1. Sourced by Scripts/test-servers.sh, which sets $STATE.
# Everything lives in "$STATE/sftp-generic": its own ed25519 host and client keys, known_hosts,
# the log, and the data folder the clients see as "/".
#
# Port: ROLLSYNC_SFTP_GENERIC_PORT (default 22300), or the first free port above it.
# Variables written to "$STATE/env": ROLLSYNC_TEST_SFTP_GENERIC_URL (sftp://rollsync@127.0.0.1:PORT/),
# ROLLSYNC_TEST_SFTP_GENERIC_IDENTITY, ROLLSYNC_TEST_SFTP_GENERIC_KNOWN_HOSTS.
# Uses free_port, await_server and stop_recorded from Scripts/test-servers-lib.sh.

start_sftp_generic() {
    local dir="$STATE/sftp-generic" port
    mkdir -p "$dir/data"
    ssh-keygen -q -t ed25519 -N '' -C rollsync-generic-host -f "$dir/host_ed25519"
    ssh-keygen -q -t ed25519 -N '' -C rollsync-generic-client -f "$dir/client_ed25519"
    port=$(free_port "${ROLLSYNC_SFTP_GENERIC_PORT:-22300}")
    # Debian's interpreter, which has python3-paramiko (a python3 earlier on PATH may not).
    /usr/bin/python3 Scripts/sftp-generic-failures-server.py --port "$port" --root "$dir/data" \
        --host-key "$dir/host_ed25519" --authorized-key "$dir/client_ed25519.pub" > "$dir/server.log" 2>&1 &
    echo $! > "$STATE/sftp_generic.pid"
    await_server sftp_generic "$port" -- "$dir/server.log" || return 1
    echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$dir/host_ed25519.pub")" > "$dir/known_hosts"
    {
        echo "ROLLSYNC_TEST_SFTP_GENERIC_URL=sftp://rollsync@127.0.0.1:$port/"
        echo "ROLLSYNC_TEST_SFTP_GENERIC_IDENTITY=$dir/client_ed25519"
        echo "ROLLSYNC_TEST_SFTP_GENERIC_KNOWN_HOSTS=$dir/known_hosts"
    } >> "$STATE/env"
}

stop_sftp_generic() {
    stop_recorded sftp_generic
}
