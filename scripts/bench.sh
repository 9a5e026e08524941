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
swift build -c release --product buzzkit >/dev/null
swift build -c release --product buzzkit-apns >/dev/null
swift build -c release --product apns-bench >/dev/null
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
# A process's CPU so far (utime + stime, clock ticks).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# RabbitMQ's own CPU over both runs (utime + stime of the broker, in clock ticks): what one
# persistent message costs the broker at the raw client's best, published and consumed.
rmq_ticks() { cpu_ticks "$(cat .services/rabbitmq/rabbitmq.pid)" 2>/dev/null || echo 0; }
ticks_before=$(rmq_ticks)
export RAW_AMQP_PUBLISH=$(.build/raw_amqp publish 127.0.0.1 "$AMQP_PORT" "$queue" "$MESSAGES")
export RAW_AMQP_CONSUME=$(.build/raw_amqp consume 127.0.0.1 "$AMQP_PORT" "$queue" "$MESSAGES")
export RAW_AMQP_CPU_US=$(( ($(rmq_ticks) - ticks_before) * 1000000 / $(getconf CLK_TCK) / MESSAGES ))
"$BENCH" delete-queue "$queue"

# The API under wrk: the raw ceiling of the same HTTP stack first, then the real routes.
API_PORT=${BENCH_API_PORT:-18181}
HELLO_PORT=$((API_PORT + 1))
wrk_rps() { awk '/Requests\/sec/ {print int($2)}'; }
wrk_requests() { awk '/requests in/ {print $1}'; }
# The microseconds per request between two readings of cpu_ticks.
per_request_us() { awk -v t="$1" -v n="$2" -v hz="$(getconf CLK_TCK)" 'BEGIN { if (n > 0) printf "%.1f", t * 1000000 / hz / n }'; }
"$BENCH" hello-server "$HELLO_PORT" & hello=$!
sleep 0.5
echo "raw HTTP stack (hello world, wrk -t2 -c50)..." >&2
ticks=$(cpu_ticks "$hello")
hello_out=$(wrk -t2 -c50 -d"${SECONDS_EACH}s" "http://127.0.0.1:$HELLO_PORT/")
export RAW_HTTP_HELLO=$(echo "$hello_out" | wrk_rps)
export RAW_HTTP_CPU_US=$(per_request_us $(( $(cpu_ticks "$hello") - ticks )) "$(echo "$hello_out" | wrk_requests)")
kill "$hello"; wait "$hello" 2>/dev/null || true

export BUZZKIT_DB_SCHEMA=bench_api BUZZKIT_HTTP_PORT=$API_PORT BUZZKIT_LOG_FORMAT=json BUZZKIT_QUEUE_PREFIX=benchapi.
"${PSQL[@]}" -c "DROP SCHEMA IF EXISTS bench_api CASCADE"
.build/release/buzzkit migrate --schema bench_api >/dev/null
export BENCH_KEY=$(.build/release/buzzkit tenant create bench --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["secretKey"])')
.build/release/buzzkit api 2>/tmp/buzzkit-bench-api.log & api=$!
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$API_PORT/readyz" >/dev/null && break; sleep 0.2; done
echo "API single events (wrk -t2 -c50 --latency)..." >&2
ticks=$(cpu_ticks "$api")
single=$(wrk -t2 -c50 -d"${SECONDS_EACH}s" --latency -s bench/single.lua "http://127.0.0.1:$API_PORT/v1/events")
export API_SINGLE_CPU_US=$(per_request_us $(( $(cpu_ticks "$api") - ticks )) "$(echo "$single" | wrk_requests)")
export API_SINGLE_RPS=$(echo "$single" | wrk_rps)
export API_SINGLE_P99_MS=$(echo "$single" | awk '$1 == "99%" { v=$2; if (v ~ /us$/) { sub(/us$/,"",v); v=v/1000 } else if (v ~ /ms$/) { sub(/ms$/,"",v) } else if (v ~ /s$/) { sub(/s$/,"",v); v=v*1000 }; print v }')
# The same ordinary traffic beside a flood of made-up keys (a different one each request).
export BENCH_FLOOD_RATE=${BENCH_FLOOD_RATE:-5000} BENCH_FLOOD_CONNECTIONS=40
echo "API single events beside a flood of unknown keys ($BENCH_FLOOD_RATE bad-key requests/s on wrk -t1 -c40, wrk -t1 -c50 ordinary)..." >&2
wrk -t1 -c"$BENCH_FLOOD_CONNECTIONS" -d"$((SECONDS_EACH + 1))s" -s bench/badkeys.lua "http://127.0.0.1:$API_PORT/v1/events" >/tmp/buzzkit-bench-flood.txt & flood=$!
sleep 0.5
flooded=$(wrk -t1 -c50 -d"${SECONDS_EACH}s" --latency -s bench/single.lua "http://127.0.0.1:$API_PORT/v1/events")
wait "$flood" || true
export API_FLOOD_RPS=$(wrk_rps </tmp/buzzkit-bench-flood.txt)
export API_FLOODED_RPS=$(echo "$flooded" | wrk_rps)
export API_FLOODED_P99_MS=$(echo "$flooded" | awk '$1 == "99%" { v=$2; if (v ~ /us$/) { sub(/us$/,"",v); v=v/1000 } else if (v ~ /ms$/) { sub(/ms$/,"",v) } else if (v ~ /s$/) { sub(/s$/,"",v); v=v*1000 }; print v }')
export API_FLOODED_FAILED=$(echo "$flooded" | awk '/Non-2xx or 3xx responses/ {print $5}')
export API_FLOODED_FAILED=${API_FLOODED_FAILED:-0}
echo "API batches of 100 events (wrk -t2 -c20)..." >&2
ticks=$(cpu_ticks "$api")
batched=$(wrk -t2 -c20 -d"${SECONDS_EACH}s" -s bench/batch.lua "http://127.0.0.1:$API_PORT/v1/events")
export API_BATCH_CPU_US=$(per_request_us $(( $(cpu_ticks "$api") - ticks )) "$(( $(echo "$batched" | wrk_requests) * 100 ))")
batch_rps=$(echo "$batched" | wrk_rps)
export API_BATCH_EVENTS=$((batch_rps * 100))
export API_RSS_MB=$(awk '/VmRSS/ {print int($2/1024)}' /proc/$api/status)
kill -TERM "$api"; wait "$api" 2>/dev/null || true
"$BENCH" delete-topology benchapi. 2>/dev/null || true
unset BUZZKIT_DB_SCHEMA BUZZKIT_QUEUE_PREFIX

# The console's pages with 1,000,000 runs stored (BENCH_CONSOLE_RUNS=0 skips it).
if [ "${BENCH_CONSOLE_RUNS:-1000000}" -gt 0 ]; then
  echo "console pages over ${BENCH_CONSOLE_RUNS:-1000000} stored runs (headless Chromium)..." >&2
  console_figures=$(bash scripts/console-bench.sh)  # a failure stops the bench (set -e)
  eval "$console_figures"
  export CONSOLE_PAGES CONSOLE_SLOWEST_MS CONSOLE_RUNS
fi

# APNs: the real provider against the stand-in in a child process, over at most 2 connections.
echo "APNs provider against the stand-in..." >&2
apns_report=$(.build/release/apns-bench)
export APNS_PUSHES_PER_SECOND=$(echo "$apns_report" | awk '/throughput:/ {print int($2)}')
export APNS_CPU_MICROS=$(echo "$apns_report" | awk '/provider CPU per push:/ {print $5}')

# The pipeline figures use 100,000 windows (the 07:00 burst of the issue).
# The table goes to docs/performance.md too (BENCH_MARKDOWN= keeps the file as it is).
BENCH_MARKDOWN=${BENCH_MARKDOWN-docs/performance.md}
BENCH_MARKDOWN=$BENCH_MARKDOWN BENCH_WINDOWS=${BENCH_WINDOWS:-100000} BENCH_SECONDS=$SECONDS_EACH BENCH_MESSAGES=$MESSAGES "$BENCH" run "$@"
echo
echo "$apns_report"

# The fleet: 10,000 subscribers (about 11,700 phones) in 10 waves of 1,000, posted 30 s apart
# with each wave's moments a minute after its posting, end to end through the real processes
# (BENCH_FLEET=0 skips it; BENCH_FLEET_WAVES=1 puts every moment in the same minute, which is
# past what this 2-core machine carries with the whole fleet simulated beside the server).
FLEET=${BENCH_FLEET:-10000}
FLEET_WAVES=${BENCH_FLEET_WAVES:-10}
if [ "$FLEET" -gt 0 ]; then
  echo
  echo "fleet of $FLEET subscribers in $FLEET_WAVES waves (release build, server as separate processes)..." >&2
  BASE=healthy,force-quit,low-power,offline,completes,two-devices,offline-through-cancel,budget-exhausted,traveller,last-second,logout-switch,reinstalled,denied,app-own-requests,tapper,locked,done-from-the-lock-screen,snoozer
  # The crowded behaviours (72 plans a subscriber) a sixth as often as the others: about 19,000 of
  # the fleet's 29,000 windows.
  DEMO_MIX=$BASE,$BASE,$BASE,$BASE,$BASE,$BASE,crowded,crowded-two-devices DEMO_CONFIGURATION=release DEMO_PHONES=$FLEET \
    DEMO_WAVES=$FLEET_WAVES DEMO_WAVE_INTERVAL=30 DEMO_LEAD_SECONDS=$((30 + FLEET / FLEET_WAVES / 33)) bash scripts/demo.sh 2>/dev/null \
    | tr '\r' '\n' | grep -E "behaviour|^[a-z-]+ +[0-9]+ +[0-9]+ |violations|^  [^ ]|plans reached|fallbacks:|iOS and APNs|^wakes:|^server answers|^SDKs:|^\\* lost|^† shown|not judged|stuck|alerts waited" \
    | tee /tmp/buzzkit-bench-fleet.txt
  if [ -n "$BENCH_MARKDOWN" ]; then
    { echo; echo "The fleet, $FLEET subscribers in $FLEET_WAVES waves through the real processes (the simulator's report):"; echo
      echo '```text'; cat /tmp/buzzkit-bench-fleet.txt; echo '```'; } >>"$BENCH_MARKDOWN"
  fi
fi
