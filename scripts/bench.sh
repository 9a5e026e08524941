#!/usr/bin/env bash
# `make bench`: BuzzKit's figures beside this machine's raw ceilings, measured in the same run.
#   raw PostgreSQL: pgbench, one-row INSERT per transaction, 1 and 4 clients
#   raw RabbitMQ:   bench/raw_amqp.c, plain rabbitmq-c (confirmed persistent publishes, acked consumes)
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash scripts/services.sh env)"
PG_PORT=${BUZZKIT_PG_PORT:-55432}
AMQP_PORT=${BUZZKIT_AMQP_PORT:-55672}
SECONDS_EACH=${BENCH_SECONDS:-5}
MESSAGES=${BENCH_MESSAGES:-100000}
PSQL=(/usr/lib/postgresql/15/bin/psql -q -h 127.0.0.1 -p "$PG_PORT" -U postgres buzzkit)
PGBENCH=/usr/lib/postgresql/15/bin/pgbench

echo "building (release)..." >&2
swift build -c release --product buzzkit-bench >/dev/null
gcc -O2 -Wall bench/raw_amqp.c -lrabbitmq -o .build/raw_amqp
BENCH=.build/release/buzzkit-bench

"${PSQL[@]}" -c "CREATE SCHEMA IF NOT EXISTS bench; DROP TABLE IF EXISTS bench.commits; CREATE TABLE bench.commits (id bigserial PRIMARY KEY, v int)"
script=$(mktemp); echo "INSERT INTO bench.commits (v) VALUES (1);" >"$script"
pgtps() { "$PGBENCH" -n -h 127.0.0.1 -p "$PG_PORT" -U postgres -f "$script" -c "$1" -j "$2" -T "$SECONDS_EACH" buzzkit 2>/dev/null | awk '/^tps/ {print int($3)}'; }
echo "raw PostgreSQL (pgbench)..." >&2
export RAW_PG_1=$(pgtps 1 1)
export RAW_PG_4=$(pgtps 4 2)
rm -f "$script"

queue="bench_raw_$$"
"$BENCH" declare-queue "$queue"
echo "raw RabbitMQ (rabbitmq-c in C)..." >&2
export RAW_AMQP_PUBLISH=$(.build/raw_amqp publish 127.0.0.1 "$AMQP_PORT" "$queue" "$MESSAGES")
export RAW_AMQP_CONSUME=$(.build/raw_amqp consume 127.0.0.1 "$AMQP_PORT" "$queue" "$MESSAGES")
"$BENCH" delete-queue "$queue"

BENCH_SECONDS=$SECONDS_EACH BENCH_MESSAGES=$MESSAGES "$BENCH" run
