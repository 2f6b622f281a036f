# OpenSSH sshd on 127.0.0.1 for the SFTP tests and benchmark (sourced by Scripts/test-servers.sh).
#
# Everything lives in "$STATE/sshd": ed25519 host and client keys, authorized_keys, sshd_config,
# known_hosts, the log, and the SFTP data folder. sshd runs in the foreground of a background job
# with internal-sftp, public-key login for root, and password login for a dedicated local account
# (rollsync-sftp, created once, its password reset to a fresh random one at each start).
#
# Appended to "$STATE/env":
#   ROLLSYNC_TEST_SFTP_URL            sftp://root@127.0.0.1:PORT/<data folder>
#   ROLLSYNC_TEST_SFTP_IDENTITY       the client's ed25519 private key
#   ROLLSYNC_TEST_SFTP_KNOWN_HOSTS    known_hosts with the server's key as [127.0.0.1]:PORT
#   ROLLSYNC_TEST_SFTP_HOST_FINGERPRINT  the host key's SHA256:… fingerprint
#   ROLLSYNC_TEST_SFTP_DATA           the data folder, as a local path (tests inspect it)
#   ROLLSYNC_TEST_SFTP_CONFIG         the sshd_config, for tests that start a private sshd
#   ROLLSYNC_TEST_SFTP_PASSWORD_USER / ROLLSYNC_TEST_SFTP_PASSWORD  the password account (if created)
#   ROLLSYNC_TEST_SFTP_LOG            the server's log

# Creates the password account once; prints nothing and returns 1 if this machine cannot.
sshd_password_user() {
    local user=rollsync-sftp password=$1
    if ! id "$user" >/dev/null 2>&1; then
        useradd --system --create-home --home-dir "/var/lib/$user" --shell /usr/sbin/nologin "$user" 2>/dev/null || return 1
    fi
    echo "$user:$password" | chpasswd 2>/dev/null || return 1
}

start_sshd() {
    local dir="$STATE/sshd"
    mkdir -p "$dir/data" /run/sshd
    ssh-keygen -q -t ed25519 -N '' -C rollsync-test-host -f "$dir/host_ed25519"
    ssh-keygen -q -t ed25519 -N '' -C rollsync-test-client -f "$dir/client_ed25519"
    cp "$dir/client_ed25519.pub" "$dir/authorized_keys"

    local allow="root" password="" password_user=""
    if [ "$(id -u)" -eq 0 ]; then
        password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
        if sshd_password_user "$password"; then
            password_user=rollsync-sftp
            allow="root $password_user"
        fi
    fi

    local password_auth=no
    [ -z "$password_user" ] || password_auth=yes
    local port
    port=$(free_port 22222)
    cat > "$dir/sshd_config" <<CONFIG
ListenAddress 127.0.0.1
Port $port
HostKey $dir/host_ed25519
PidFile none
AuthorizedKeysFile $dir/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication $password_auth
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
AllowUsers $allow
MaxStartups 100
MaxSessions 50
Subsystem sftp internal-sftp
LogLevel VERBOSE
CONFIG
    /usr/sbin/sshd -t -f "$dir/sshd_config"
    /usr/sbin/sshd -D -e -f "$dir/sshd_config" > "$dir/sshd.log" 2>&1 &
    local pid=$!
    echo "$pid" > "$STATE/sshd.pid"
    if ! wait_for_port "$port" "$pid"; then
        echo "sshd did not start listening on 127.0.0.1:$port; its log:" >&2
        cat "$dir/sshd.log" >&2
        return 1
    fi
    echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$dir/host_ed25519.pub")" > "$dir/known_hosts"
    local fingerprint
    fingerprint=$(ssh-keygen -l -E sha256 -f "$dir/host_ed25519.pub" | cut -d' ' -f2)
    {
        echo "ROLLSYNC_TEST_SFTP_URL=sftp://root@127.0.0.1:$port$dir/data"
        echo "ROLLSYNC_TEST_SFTP_IDENTITY=$dir/client_ed25519"
        echo "ROLLSYNC_TEST_SFTP_KNOWN_HOSTS=$dir/known_hosts"
        echo "ROLLSYNC_TEST_SFTP_HOST_FINGERPRINT=$fingerprint"
        echo "ROLLSYNC_TEST_SFTP_DATA=$dir/data"
        echo "ROLLSYNC_TEST_SFTP_CONFIG=$dir/sshd_config"
        echo "ROLLSYNC_TEST_SFTP_LOG=$dir/sshd.log"
        if [ -n "$password_user" ]; then
            echo "ROLLSYNC_TEST_SFTP_PASSWORD_USER=$password_user"
            echo "ROLLSYNC_TEST_SFTP_PASSWORD=$password"
        fi
    } >> "$STATE/env"
    echo "sshd listening on 127.0.0.1:$port (pid $pid)"
}

stop_sshd() {
    local pidfile="$STATE/sshd.pid"
    [ -f "$pidfile" ] || return 0
    local pid
    pid=$(cat "$pidfile")
    # The listener's children serve open sessions: stop them too (by parent pid, never by name).
    pkill -TERM -P "$pid" 2>/dev/null || true
    kill "$pid" 2>/dev/null || true
    rm -f "$pidfile"
}
