# moto (PyPI `moto[server]`) on 127.0.0.1: the S3 server of the S3 tests, with signature checking on.
# Sourced by Scripts/test-servers.sh, which sets $STATE. Everything lives in "$STATE/s3".
#
# moto checks SigV4 signatures and access keys only for IAM users it knows, and only after
# INITIAL_NO_AUTH_ACTION_COUNT unauthenticated actions: the first four (create a user, its access
# key, an allow-all policy, the bucket) are made here with the AWS CLI; every later request must be
# signed with that user's key, so wrong keys and broken signatures are refused as on AWS.
#
# The venv (moto[server] and awscli) is made by Scripts/install-dependencies.sh.
#
# Variables written to "$STATE/env": ROLLSYNC_TEST_S3_URL (s3://bucket/?endpoint=…&region=…&style=path),
# ROLLSYNC_TEST_S3_ENDPOINT, ROLLSYNC_TEST_S3_BUCKET, ROLLSYNC_TEST_S3_ACCESS_KEY_ID,
# ROLLSYNC_TEST_S3_SECRET_ACCESS_KEY, ROLLSYNC_TEST_S3_CREDENTIALS_FILE (the same key as profile
# `rollsync-test` of an AWS shared credentials file), ROLLSYNC_TEST_AWS_CLI,
# ROLLSYNC_TEST_MOTO_PYTHON and ROLLSYNC_TEST_MOTO_LAUNCHER (the venv's python and moto-atomic-put.py).
#
# start_moto DIR PORT: starts a private moto with auth in DIR on PORT, creates the user, key and
# bucket `rollsync-test`, and writes DIR/credentials (also used by Scripts/benchmark.sh targets).

S3_PORT=${ROLLSYNC_S3_PORT:-18090}
S3_VENV=${ROLLSYNC_S3_VENV:-$PWD/.test-tools/s3-venv}
S3_BUCKET=rollsync-test

start_moto() {
    local dir=$1 port=$2 endpoint="http://127.0.0.1:$2" launcher="$PWD/Scripts/test-servers.d/moto-atomic-put.py"
    mkdir -p "$dir"
    # moto_server, with conditional PUTs atomic as S3's are (see the launcher).
    (cd "$dir" && INITIAL_NO_AUTH_ACTION_COUNT=4 exec "$S3_VENV/bin/python" "$launcher" -H 127.0.0.1 -p "$port" > "$dir/server.log" 2>&1) &
    echo $! > "$dir/moto.pid"
    wait_for_port "$port" "$(cat "$dir/moto.pid")" || { cat "$dir/server.log" >&2; return 1; }
    local aws=("$S3_VENV/bin/aws" --endpoint-url "$endpoint" --region us-east-1)
    export AWS_ACCESS_KEY_ID=bootstrap AWS_SECRET_ACCESS_KEY=bootstrap AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
    "${aws[@]}" iam create-user --user-name rollsync-test > /dev/null
    "${aws[@]}" iam create-access-key --user-name rollsync-test --output text \
        --query 'AccessKey.[AccessKeyId,SecretAccessKey]' > "$dir/key.txt"
    "${aws[@]}" iam put-user-policy --user-name rollsync-test --policy-name everything \
        --policy-document '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}'
    "${aws[@]}" s3api create-bucket --bucket "$S3_BUCKET" > /dev/null
    unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_CONFIG_FILE AWS_SHARED_CREDENTIALS_FILE
    local id secret
    read -r id secret < "$dir/key.txt"
    printf '[rollsync-test]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$id" "$secret" > "$dir/credentials"
    chmod 600 "$dir/credentials" "$dir/key.txt"
}

start_s3() {
    local dir="$STATE/s3" id secret
    start_moto "$dir" "$S3_PORT"
    cp "$dir/moto.pid" "$STATE/s3.pid"
    read -r id secret < "$dir/key.txt"
    {
        echo "ROLLSYNC_TEST_S3_URL='s3://$S3_BUCKET/?endpoint=http://127.0.0.1:$S3_PORT&region=us-east-1&style=path'"
        echo "ROLLSYNC_TEST_S3_ENDPOINT=http://127.0.0.1:$S3_PORT"
        echo "ROLLSYNC_TEST_S3_BUCKET=$S3_BUCKET"
        echo "ROLLSYNC_TEST_S3_ACCESS_KEY_ID=$id"
        echo "ROLLSYNC_TEST_S3_SECRET_ACCESS_KEY=$secret"
        echo "ROLLSYNC_TEST_S3_CREDENTIALS_FILE=$dir/credentials"
        echo "ROLLSYNC_TEST_AWS_CLI=$S3_VENV/bin/aws"
        echo "ROLLSYNC_TEST_MOTO_PYTHON=$S3_VENV/bin/python"
        echo "ROLLSYNC_TEST_MOTO_LAUNCHER=$PWD/Scripts/test-servers.d/moto-atomic-put.py"
    } >> "$STATE/env"
    echo "s3 (moto) listening on 127.0.0.1:$S3_PORT (pid $(cat "$STATE/s3.pid"))"
}

stop_s3() {
    stop_recorded s3
}
