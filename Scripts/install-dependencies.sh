#!/usr/bin/env bash
# Installs the Debian packages that building and testing RollingSync needs. Idempotent: packages
# already present are skipped, and apt is only consulted when something is missing.
set -euo pipefail

packages=(
    pkg-config libsqlite3-dev sqlite3          # SQLite for SyncCore (and the sqlite3 tool its tests drive)
    zlib1g-dev                                 # SyncCore: compression of change sets (and of older whole stores)
    libzstd-dev                                # SyncCore: compression of whole stores
    libssl-dev                                 # CryptoPrimitives: OpenSSL's libcrypto (encryption, digests, S3 signatures)
    libcurl4-openssl-dev                       # WebDAVRemote
    libssh2-1-dev                              # SFTPRemote
    openssh-server openssh-client              # the real sshd the SFTP tests run against
    apache2 apache2-utils                      # the real Apache mod_dav the WebDAV tests run against
    openssl                                    # the test CA and certificate of Apache's TLS port
    curl                                       # readiness polls of the WebDAV servers; WebDAVBenchmark's baseline
    python3-venv                               # wsgidav, the second WebDAV server, lives in a venv
    python3-paramiko                           # the SFTP server that answers generic failures
    nginx libnginx-mod-http-dav-ext            # nginx with dav + dav_ext, the third WebDAV server
    lighttpd lighttpd-mod-webdav               # lighttpd mod_webdav, the fourth WebDAV server
    ceph-mon ceph-osd radosgw ceph-common      # Ceph's RADOS Gateway, the production S3 server of the S3 tests
)

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing: ${missing[*]}"
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    # The server packages (apache2, nginx, lighttpd) start a system-wide service on port 80 when
    # installed; the tests run private instances instead. Debian's policy-rc.d hook stops those
    # starts (container images ship one; on a machine without it, one is set up for the install).
    policy=/usr/sbin/policy-rc.d
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' | "${sudo_cmd[@]}" tee "$policy" > /dev/null
        "${sudo_cmd[@]}" chmod 755 "$policy"
        trap '"${sudo_cmd[@]}" rm -f "$policy"' EXIT
    fi
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# moto (the S3 test server) and the AWS CLI (the S3 cross-checks and S3Benchmark's baseline), from
# PyPI into a venv of their own; reused while both are present.
s3_venv=${ROLLSYNC_S3_VENV:-"$(cd "$(dirname "$0")/.." && pwd)/.test-tools/s3-venv"}
if [ ! -x "$s3_venv/bin/moto_server" ] || [ ! -x "$s3_venv/bin/aws" ]; then
    echo "Installing moto[server] and awscli into $s3_venv"
    python3 -m venv "$s3_venv"
    "$s3_venv/bin/pip" install --quiet --disable-pip-version-check 'moto[server]' awscli
fi
