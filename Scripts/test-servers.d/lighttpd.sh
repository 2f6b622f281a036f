# lighttpd with mod_webdav (Debian lighttpd-mod-webdav) on 127.0.0.1: the fourth WebDAV server of the
# WebDAV tests, a quirk target (403 for PROPFIND below a file, no ETag on GET; see
# Docs/Backends/WebDAV.md). Sourced by Scripts/test-servers.sh, which sets $STATE. Everything lives
# in "$STATE/lighttpd": the config, the user file, the log, the upload folder, the property
# database and the DAV root "$STATE/lighttpd/dav".
#
# Port: ROLLSYNC_LIGHTTPD_PORT (default 18086), or the first free port above it.
# Variables written to "$STATE/env": ROLLSYNC_TEST_WEBDAV_LIGHTTPD_URL (Basic auth, the same user
# and password as Apache). Uses free_port, await_server and stop_recorded from Scripts/test-servers-lib.sh.

start_lighttpd() {
    local dir="$STATE/lighttpd" port
    local user=${WEBDAV_TEST_USER:-davuser} password=${WEBDAV_TEST_PASSWORD:-davpass-test}
    port=$(free_port "${ROLLSYNC_LIGHTTPD_PORT:-18086}")
    dav_server_state "$dir" "$user" "$password" dav uploads
    # As root, lighttpd drops to www-data after binding (and then writes its log and its property
    # database in $dir); as another user it stays who it is.
    local user_settings=""
    if [ "$(id -u)" -eq 0 ]; then
        user_settings='server.username = "www-data"
server.groupname = "www-data"'
        touch "$dir/error.log" && chown www-data:www-data "$dir" "$dir/error.log"
    fi
    cat > "$dir/lighttpd.conf" <<CONF
server.bind = "127.0.0.1"
server.port = $port
server.document-root = "$dir/dav"
server.errorlog = "$dir/error.log"
server.upload-dirs = ( "$dir/uploads" )
server.max-request-size = 0
server.max-keep-alive-requests = 100000
server.modules = ( "mod_auth", "mod_authn_file", "mod_webdav" )
$user_settings
auth.backend = "htpasswd"
auth.backend.htpasswd.userfile = "$dir/htpasswd"
auth.require = ( "/" => ( "method" => "basic", "realm" => "dav", "require" => "valid-user" ) )
webdav.activate = "enable"
webdav.is-readonly = "disable"
webdav.sqlite-db-name = "$dir/webdav.sqlite"
CONF
    /usr/sbin/lighttpd -tt -f "$dir/lighttpd.conf"
    /usr/sbin/lighttpd -D -f "$dir/lighttpd.conf" > "$dir/stdout.log" 2>&1 &
    echo $! > "$STATE/lighttpd.pid"
    await_server lighttpd "$port" "$user" "$password" -- "$dir/stdout.log" "$dir/error.log" || return 1
    echo "ROLLSYNC_TEST_WEBDAV_LIGHTTPD_URL=webdav://127.0.0.1:$port/" >> "$STATE/env"
}

stop_lighttpd() {
    stop_recorded lighttpd
}
