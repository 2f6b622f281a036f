# Ceph's RADOS Gateway on 127.0.0.1: the production S3 implementation the S3 tests also run
# against, beside moto. Sourced by Scripts/test-servers.sh, which sets $STATE. Everything lives in
# "$STATE/rgw"; the Debian packages (ceph-mon, ceph-osd, radosgw, ceph-common) are installed by
# Scripts/install-dependencies.sh.
#
# A one-node cluster made by hand, as Ceph's manual-deployment guide does: one monitor (msgr2 only),
# one OSD on memstore (objects in memory, nothing on disk to clean up), cephx on for every hop with
# the keys made here by ceph-authtool and imported by the monitor's mkfs, pools of one replica.
# No manager daemon: the gateways do not need one (`ceph -s` then shows no PG statistics).
# Then **two** gateways, `client.rgw.a` and `client.rgw.b`, on two ports over that one cluster, as
# clients in two regions of one store see it; a user made with radosgw-admin and the bucket
# `rollsync-test`, made through gateway a with the AWS CLI of Scripts/install-dependencies.sh
# (\$S3_VENV, set by s3.sh).
#
# Variables written to "$STATE/env": ROLLSYNC_TEST_RGW_URL and ROLLSYNC_TEST_RGW_SECOND_URL (the
# bucket through gateway a and b: s3://rollsync-test/?endpoint=…&region=us-east-1&style=path),
# ROLLSYNC_TEST_RGW_ACCESS_KEY_ID, ROLLSYNC_TEST_RGW_SECRET_ACCESS_KEY.
#
# Ports: the monitor on RGW_MON_PORT (18100), the OSD's messengers in 18120-18139, the gateways on
# RGW_PORT (18110) and RGW_PORT + 1. Every wait is bounded (the first gateway start creates the
# gateway's pools: about 10 s here).

RGW_MON_PORT=${ROLLSYNC_RGW_MON_PORT:-18100}
RGW_PORT=${ROLLSYNC_RGW_PORT:-18110}
RGW_BUCKET=rollsync-test

# rgw_wait SECONDS DAEMON DESCRIPTION COMMAND…: polls COMMAND (each attempt cut off after 10 s)
# every 0.2 s until it succeeds, for at most SECONDS; fails with DESCRIPTION at once if the daemon
# whose pid is in $STATE/rgw-DAEMON.pid has exited, and when the time is up.
rgw_wait() {
    local seconds=$1 daemon=$2 description=$3 deadline
    shift 3
    deadline=$((SECONDS + seconds))
    while [ $SECONDS -lt $deadline ]; do
        timeout 10 "$@" > /dev/null 2>&1 && return 0
        if ! kill -0 "$(cat "$STATE/rgw-$daemon.pid")" 2>/dev/null; then
            echo "error: $description: ceph $daemon exited; its output:" >&2
            cat "$STATE/rgw/log/$daemon.out" >&2
            return 1
        fi
        sleep 0.2
    done
    echo "error: $description within $seconds s; the cluster's logs are in $STATE/rgw/log" >&2
    return 1
}

# rgw_daemon NAME COMMAND…: runs a Ceph daemon in the foreground of a background job, its pid in
# $STATE/rgw-NAME.pid.
rgw_daemon() {
    local name=$1
    shift
    "$@" -f > "$STATE/rgw/log/$name.out" 2>&1 &
    echo $! > "$STATE/rgw-$name.pid"
}

start_rgw() {
    local dir="$STATE/rgw" fsid osd_uuid id secret gateway
    mkdir -p "$dir"/{run,log,mon,osd,gateway-a,gateway-b}
    fsid=$(cat /proc/sys/kernel/random/uuid)
    osd_uuid=$(cat /proc/sys/kernel/random/uuid)
    cat > "$dir/ceph.conf" <<CONF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$RGW_MON_PORT
mon initial members = a
public addr = 127.0.0.1
ms bind msgr1 = false
ms bind ipv6 = false
ms bind port min = 18120
ms bind port max = 18139
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
auth allow insecure global id reclaim = false
keyring = $dir/keyring
run dir = $dir/run
admin socket = $dir/run/\$name.asok
log file = $dir/log/\$name.log
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon max pg per osd = 1000
mon warn on pool no redundancy = false
mon data avail warn = 1
mon data avail crit = 0
[mon.a]
mon data = $dir/mon
[osd.0]
osd data = $dir/osd
osd objectstore = memstore
memstore device bytes = 2147483648
[client.rgw.a]
rgw frontends = beast endpoint=127.0.0.1:$RGW_PORT
rgw data = $dir/gateway-a
[client.rgw.b]
rgw frontends = beast endpoint=127.0.0.1:$((RGW_PORT + 1))
rgw data = $dir/gateway-b
CONF
    local conf=(-c "$dir/ceph.conf") keyring="$dir/keyring"
    # The monitor's mkfs imports every key of this keyring with its capabilities.
    ceph-authtool --create-keyring "$keyring" --gen-key -n mon. --cap mon 'allow *' > /dev/null
    ceph-authtool "$keyring" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' > /dev/null
    ceph-authtool "$keyring" --gen-key -n osd.0 --cap mon 'allow profile osd' --cap mgr 'allow profile osd' --cap osd 'allow *' > /dev/null
    for gateway in a b; do
        ceph-authtool "$keyring" --gen-key -n "client.rgw.$gateway" --cap mon 'allow rw' --cap osd 'allow rwx' > /dev/null
    done
    chmod 600 "$keyring"
    monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$RGW_MON_PORT]" "$dir/monmap" > /dev/null
    ceph-mon "${conf[@]}" --mkfs -i a --monmap "$dir/monmap" --keyring "$keyring"
    for port in "$RGW_MON_PORT" "$RGW_PORT" "$((RGW_PORT + 1))"; do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "error: 127.0.0.1:$port is taken (another Ceph test cluster? Scripts/test-servers.sh stop)" >&2
            return 1
        fi
    done
    rgw_daemon mon ceph-mon "${conf[@]}" -i a
    rgw_wait 30 mon "the Ceph monitor did not answer" ceph "${conf[@]}" --connect-timeout 5 mon stat

    timeout 30 ceph "${conf[@]}" --connect-timeout 5 osd new "$osd_uuid" > /dev/null
    timeout 60 ceph-osd "${conf[@]}" -i 0 --mkfs --osd-uuid "$osd_uuid" > "$dir/log/osd-mkfs.out" 2>&1
    rgw_daemon osd ceph-osd "${conf[@]}" -i 0
    rgw_wait 60 osd "the OSD did not come up" bash -c 'ceph -c "$1" --connect-timeout 5 osd stat | grep -q " 1 up"' _ "$dir/ceph.conf"

    for gateway in a b; do
        rgw_daemon "gateway-$gateway" radosgw "${conf[@]}" -n "client.rgw.$gateway"
    done
    rgw_wait 120 gateway-a "RADOS gateway a did not answer" curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$RGW_PORT/"
    rgw_wait 60 gateway-b "RADOS gateway b did not answer" curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$((RGW_PORT + 1))/"

    id="RGW$(openssl rand -hex 8 | tr a-f A-F)"
    secret=$(openssl rand -hex 20)
    timeout 60 radosgw-admin "${conf[@]}" -n client.admin user create --uid=rollsync-test --display-name=rollsync-test \
        --access-key="$id" --secret-key="$secret" > /dev/null
    AWS_ACCESS_KEY_ID=$id AWS_SECRET_ACCESS_KEY=$secret AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null \
        "$S3_VENV/bin/aws" --endpoint-url "http://127.0.0.1:$RGW_PORT" --region us-east-1 \
        s3api create-bucket --bucket "$RGW_BUCKET" > /dev/null
    {
        echo "ROLLSYNC_TEST_RGW_URL='s3://$RGW_BUCKET/?endpoint=http://127.0.0.1:$RGW_PORT&region=us-east-1&style=path'"
        echo "ROLLSYNC_TEST_RGW_SECOND_URL='s3://$RGW_BUCKET/?endpoint=http://127.0.0.1:$((RGW_PORT + 1))&region=us-east-1&style=path'"
        echo "ROLLSYNC_TEST_RGW_ACCESS_KEY_ID=$id"
        echo "ROLLSYNC_TEST_RGW_SECRET_ACCESS_KEY=$secret"
        echo "ROLLSYNC_TEST_AWS_CLI=$S3_VENV/bin/aws"
    } >> "$STATE/env"
    echo "rgw (Ceph RADOS Gateway) listening on 127.0.0.1:$RGW_PORT and :$((RGW_PORT + 1)) (pids $(cat "$STATE/rgw-gateway-a.pid") $(cat "$STATE/rgw-gateway-b.pid"))"
}

stop_rgw() {
    # Gateways first, then the OSD, then the monitor they all talk to.
    local name
    for name in gateway-a gateway-b osd mon; do
        stop_recorded "rgw-$name"
    done
}
