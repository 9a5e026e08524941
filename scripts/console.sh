#!/usr/bin/env bash
# `make console`: serves the last `make demo`'s data in the console again (its schema `demo`
# and queues `demo.*`), with `buzzkit api` in the foreground until Ctrl-C. Only the API runs:
# the pages read what the demo left; the health page shows its queues with no consumers.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${DEMO_PORT:-18480}
[ -f .demo/keys.json ] || { echo "no demo data yet: run \`make demo\` first" >&2; exit 1; }
bash scripts/services.sh start >/dev/null
eval "$(bash scripts/services.sh env)"
swift build --product buzzkit >/dev/null
export BUZZKIT_DB_SCHEMA=demo BUZZKIT_QUEUE_PREFIX=demo. BUZZKIT_HTTP_PORT=$PORT BUZZKIT_LOG_FORMAT=human
echo "console   http://127.0.0.1:$PORT/console"
echo "sign in   with the secret key in .demo/keys.json (secretKey); Ctrl-C stops it"
exec .build/debug/buzzkit api
