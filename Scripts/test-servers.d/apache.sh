# Apache httpd with mod_dav/mod_dav_fs on 127.0.0.1, the reference WebDAV server of the WebDAV tests.
# Sourced by Scripts/test-servers.sh, which sets $STATE. Everything lives in "$STATE/apache".
#
#   /        Basic auth (user/password from its own htpasswd), DAV root "$STATE/apache/dav"
#   /digest/ Digest auth (same user/password, htdigest), DAV root "$STATE/apache/dav-digest"
#   https on APACHE_TLS_PORT: the same locations over TLS, with a certificate for 127.0.0.1 signed by
#            a throw-away CA generated here ("$STATE/apache/tls/ca.pem")
#
# Variables written to "$STATE/env": ROLLSYNC_TEST_WEBDAV_APACHE_URL, ROLLSYNC_TEST_WEBDAV_APACHE_DIGEST_URL,
# ROLLSYNC_TEST_WEBDAV_USER, ROLLSYNC_TEST_WEBDAV_PASSWORD, ROLLSYNC_TEST_WEBDAV_APACHE_TLS_URL,
# ROLLSYNC_TEST_WEBDAV_CA_FILE.
#
# write_apache_config DIR PORT USER PASSWORD [TLS_PORT] writes a complete server instance into DIR (also used by
# the tests that stop and restart a private server of their own).

APACHE_PORT=${ROLLSYNC_APACHE_PORT:-18080}
APACHE_TLS_PORT=${ROLLSYNC_APACHE_TLS_PORT:-18443}
WEBDAV_TEST_USER=davuser
WEBDAV_TEST_PASSWORD=davpass-test

# write_tls_material DIR: a CA and a server certificate for 127.0.0.1 signed by it, in DIR.
write_tls_material() {
    local dir=$1
    mkdir -p "$dir"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=RollingSync test CA" \
        -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1\n' > "$dir/san.ext"
    openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 2 \
        -extfile "$dir/san.ext" -out "$dir/server.pem" 2>/dev/null
}

write_apache_config() {
    local dir=$1 port=$2 user=$3 password=$4 tls_port=${5:-}
    local modules=/usr/lib/apache2/modules
    mkdir -p "$dir/dav" "$dir/dav-digest" "$dir/lock"
    htpasswd -bc "$dir/htpasswd" "$user" "$password" 2>/dev/null
    # htdigest is interactive; the file format is user:realm:md5(user:realm:password).
    printf '%s:%s:%s\n' "$user" "dav-digest" \
        "$(printf '%s' "$user:dav-digest:$password" | md5sum | cut -d' ' -f1)" > "$dir/htdigest"
    chown -R www-data:www-data "$dir/dav" "$dir/dav-digest" "$dir/lock"
    chmod 644 "$dir/htpasswd" "$dir/htdigest"
    cat > "$dir/httpd.conf" <<CONF
ServerRoot $dir
ServerName localhost
Listen 127.0.0.1:$port
PidFile $dir/httpd.pid
ErrorLog $dir/error.log
# Each request with its client port, time taken (µs) and the connection's state after it (X
# aborted, + kept alive, - closed): what a stalled or cut connection in a test did at the server.
LogFormat "%h:%{remote}p %{%T}t.%{msec_frac}t \"%r\" %>s %B %D %X" timing
CustomLog $dir/access.log timing
LogLevel warn
User www-data
Group www-data
LoadModule mpm_event_module $modules/mod_mpm_event.so
LoadModule authn_core_module $modules/mod_authn_core.so
LoadModule authz_core_module $modules/mod_authz_core.so
LoadModule auth_basic_module $modules/mod_auth_basic.so
LoadModule auth_digest_module $modules/mod_auth_digest.so
LoadModule authn_file_module $modules/mod_authn_file.so
LoadModule authz_user_module $modules/mod_authz_user.so
LoadModule alias_module $modules/mod_alias.so
LoadModule dav_module $modules/mod_dav.so
LoadModule dav_fs_module $modules/mod_dav_fs.so
DAVLockDB $dir/lock/DAVLock
LimitRequestBody 0
KeepAliveTimeout 30
MaxKeepAliveRequests 0
DocumentRoot $dir/dav
<Directory $dir/dav>
    Dav On
    AuthType Basic
    AuthName "dav"
    AuthUserFile $dir/htpasswd
    Require valid-user
</Directory>
Alias /digest $dir/dav-digest
<Directory $dir/dav-digest>
    Dav On
    AuthType Digest
    AuthName "dav-digest"
    AuthDigestProvider file
    AuthUserFile $dir/htdigest
    Require valid-user
</Directory>
CONF
    if [ -n "$tls_port" ]; then
        write_tls_material "$dir/tls"
        cat >> "$dir/httpd.conf" <<CONF
LoadModule socache_shmcb_module $modules/mod_socache_shmcb.so
LoadModule ssl_module $modules/mod_ssl.so
Listen 127.0.0.1:$tls_port
SSLSessionCache shmcb:$dir/ssl_scache(512000)
<VirtualHost 127.0.0.1:$tls_port>
    SSLEngine on
    SSLCertificateFile $dir/tls/server.pem
    SSLCertificateKeyFile $dir/tls/server.key
</VirtualHost>
CONF
    fi
    /usr/sbin/apache2 -t -f "$dir/httpd.conf" >/dev/null 2>&1 || {
        /usr/sbin/apache2 -t -f "$dir/httpd.conf"
        return 1
    }
}

start_apache() {
    local dir="$STATE/apache"
    write_apache_config "$dir" "$APACHE_PORT" "$WEBDAV_TEST_USER" "$WEBDAV_TEST_PASSWORD" "$APACHE_TLS_PORT"
    /usr/sbin/apache2 -f "$dir/httpd.conf" -DFOREGROUND > "$dir/stdout.log" 2>&1 &
    echo $! > "$STATE/apache.pid"
    wait_for_http "http://127.0.0.1:$APACHE_PORT/" "$WEBDAV_TEST_USER" "$WEBDAV_TEST_PASSWORD"
    kill -0 "$(cat "$STATE/apache.pid")" 2>/dev/null || {
        echo "error: apache did not start (is another server on port $APACHE_PORT?):" >&2
        cat "$dir/stdout.log" >&2
        return 1
    }
    {
        echo "ROLLSYNC_TEST_WEBDAV_APACHE_URL=webdav://127.0.0.1:$APACHE_PORT/"
        echo "ROLLSYNC_TEST_WEBDAV_APACHE_DIGEST_URL=webdav://127.0.0.1:$APACHE_PORT/digest/"
        echo "ROLLSYNC_TEST_WEBDAV_USER=$WEBDAV_TEST_USER"
        echo "ROLLSYNC_TEST_WEBDAV_PASSWORD=$WEBDAV_TEST_PASSWORD"
        echo "ROLLSYNC_TEST_WEBDAV_APACHE_TLS_URL=webdavs://127.0.0.1:$APACHE_TLS_PORT/"
        echo "ROLLSYNC_TEST_WEBDAV_CA_FILE=$dir/tls/ca.pem"
        echo "ROLLSYNC_TEST_WEBDAV_APACHE_DATA=$dir/dav"
    } >> "$STATE/env"
}

stop_apache() {
    [ -f "$STATE/apache.pid" ] || return 0
    stop_pid "$(cat "$STATE/apache.pid")"
    rm -f "$STATE/apache.pid"
}
