# nginx with its dav module and dav_ext (Debian libnginx-mod-http-dav-ext) on 127.0.0.1: the third
# WebDAV server of the WebDAV tests, a quirk target (500 for a missing parent, no dotfiles in
# listings, no ETag on GET; see Docs/Backends/WebDAV.md). Sourced by Scripts/test-servers.sh, which
# sets $STATE. Everything lives in "$STATE/nginx": the config, the htpasswd, the logs, the temporary
# body folder and the DAV root "$STATE/nginx/dav".
#
# Port: ROLLSYNC_NGINX_PORT (default 18084), or the first free port above it.
# Variables written to "$STATE/env": ROLLSYNC_TEST_WEBDAV_NGINX_URL (Basic auth, the same user and
# password as Apache). Uses free_port, await_server and stop_recorded from Scripts/test-servers-lib.sh.

start_nginx() {
    local dir="$STATE/nginx" port
    local user=${WEBDAV_TEST_USER:-davuser} password=${WEBDAV_TEST_PASSWORD:-davpass-test}
    port=$(free_port "${ROLLSYNC_NGINX_PORT:-18084}")
    dav_server_state "$dir" "$user" "$password" dav tmp
    # As root, the workers run as www-data (files they create should not be root's); as another
    # user the directive would only be ignored with a warning, so it is left out.
    local user_directive=""
    [ "$(id -u)" -ne 0 ] || user_directive="user www-data www-data;"
    cat > "$dir/nginx.conf" <<CONF
load_module /usr/lib/nginx/modules/ngx_http_dav_ext_module.so;
$user_directive
daemon off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 512; }
http {
    access_log off;
    client_body_temp_path $dir/tmp/body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    keepalive_requests 100000;
    keepalive_timeout 30s;
    server {
        listen 127.0.0.1:$port;
        root $dir/dav;
        location / {
            auth_basic "dav";
            auth_basic_user_file $dir/htpasswd;
            dav_methods PUT DELETE MKCOL COPY MOVE;
            dav_ext_methods PROPFIND OPTIONS;
            dav_access user:rw group:rw all:r;
            client_max_body_size 0;
        }
    }
}
CONF
    /usr/sbin/nginx -t -q -c "$dir/nginx.conf" -p "$dir/" -e "$dir/error.log"
    /usr/sbin/nginx -c "$dir/nginx.conf" -p "$dir/" -e "$dir/error.log" > "$dir/stdout.log" 2>&1 &
    echo $! > "$STATE/nginx.pid"
    await_server nginx "$port" "$user" "$password" -- "$dir/stdout.log" "$dir/error.log" || return 1
    echo "ROLLSYNC_TEST_WEBDAV_NGINX_URL=webdav://127.0.0.1:$port/" >> "$STATE/env"
}

stop_nginx() {
    stop_recorded nginx
}
