#!/usr/bin/env bash
# The console's pages with 1,000,000 runs stored (part of `make bench`; BENCH_CONSOLE_RUNS
# changes the count). Real runs first, made by a release API, workers and scheduler from the
# leg-day workflow; then each cloned in SQL with its plan and a delivery, spread over 100,000
# subscribers and the last 29.5 days (the scheduler's retention sweeper removes finished runs after 30). Headless Chromium then loads each page afresh and reads
# the browser's navigation timing (bench/console_pages.py). Progress goes to stderr; stdout
# is `export CONSOLE_…=…` lines for bench.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${BENCH_CONSOLE_RUNS:-1000000}
PORT=${BENCH_CONSOLE_PORT:-18190}
BIN=.build/release
PSQL=(/usr/lib/postgresql/15/bin/psql -qtA -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "${BUZZKIT_PG_PORT:-55432}" -U postgres buzzkit)
say() { echo "console bench: $*" >&2; }

export BUZZKIT_DB_SCHEMA=bench_console BUZZKIT_QUEUE_PREFIX=benchconsole. BUZZKIT_HTTP_PORT=$PORT BUZZKIT_LOG_FORMAT=json
"${PSQL[@]}" -c "DROP SCHEMA IF EXISTS bench_console CASCADE" >/dev/null 2>&1
$BIN/buzzkit migrate --schema bench_console >/dev/null
SK=$($BIN/buzzkit tenant create console-bench --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["secretKey"])')
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  # BENCH_CONSOLE_KEEP=1 leaves the schema for a look with psql (EXPLAIN the pages' statements).
  [ -n "${BENCH_CONSOLE_KEEP:-}" ] || "${PSQL[@]}" -c "DROP SCHEMA IF EXISTS bench_console CASCADE" >/dev/null 2>&1 || true
  .build/release/buzzkit-bench delete-topology benchconsole. 2>/dev/null || true
}
trap cleanup EXIT
$BIN/buzzkit api 2>/tmp/buzzkit-console-bench-api.log & pids+=($!)
for queue in trigger plan-dispatch ack-ingest fallback-check; do $BIN/buzzkit worker --queues "$queue" 2>/dev/null & pids+=($!); done
$BIN/buzzkit scheduler 2>/dev/null & pids+=($!)
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null && break; sleep 0.2; done

api() { curl -sf -X "$1" -H "Authorization: Bearer $SK" -H 'Content-Type: application/json' "http://127.0.0.1:$PORT$2" ${3:+-d "$3"} >/dev/null; }
api PUT /v1/workflows/leg-day '{"key":"leg-day","trigger":{"event":"workout.scheduled"},"cancelOn":[{"event":"workout.completed"}],
  "steps":[{"name":"morning-of","waitUntil":{"at":"{{trigger.at}}"}},
           {"name":"nudge","send":{"deliver":"local","title":"Leg day","body":"6:00 with Maya.","deepLink":"gym://workouts/legs"}}]}'
at=$(date -u -d '+4 seconds' +%Y-%m-%dT%H:%M:%SZ)
for i in $(seq 1 20); do
  api PUT "/v1/subscribers/model-$i" '{"timezone":"Europe/Berlin"}'
  api PUT "/v1/subscribers/model-$i/devices" "{\"platform\":\"ios\",\"token\":\"$(printf '%064x' "$i")\",\"topic\":\"com.example.gym\"}"
  api POST /v1/events "{\"event\":\"workout.scheduled\",\"subscriberId\":\"model-$i\",\"properties\":{\"at\":\"$at\"}}"
done
say "20 real runs through the pipeline..."
for _ in $(seq 1 120); do
  [ "$("${PSQL[@]}" -c "SELECT count(*) FROM bench_console.runs WHERE status = 'completed'")" -ge 20 ] && break; sleep 0.5
done

say "cloning them into $RUNS runs over 100,000 subscribers and 29.5 days (a plan and a delivery each)..."
started=$(date +%s)
"${PSQL[@]}" <<SQL >/dev/null
SET search_path = bench_console;
INSERT INTO subscribers (tenant_id, id, timezone)
SELECT tenant_id, 'subscriber-' || g, 'Europe/Berlin' FROM (SELECT id AS tenant_id FROM tenants LIMIT 1) t, generate_series(0, 99999) g;
INSERT INTO devices (id, tenant_id, subscriber_id, platform, token, topic, environment)
SELECT gen_random_uuid(), tenant_id, 'subscriber-' || g, 'ios', md5(g::text) || md5((g + 1)::text), 'com.example.gym', 'production'
FROM (SELECT id AS tenant_id FROM tenants LIMIT 1) t, generate_series(0, 99999) g;
DO \$\$
DECLARE start bigint := 0;
BEGIN
  WHILE start < $RUNS LOOP
    WITH model AS (SELECT * FROM runs WHERE status = 'completed' ORDER BY created_at LIMIT 1),
    plan AS (SELECT payload FROM local_plans LIMIT 1),
    made AS (
      INSERT INTO runs (id, tenant_id, workflow_key, workflow_version, subscriber_id, dry_run, bulk, status, cancel_events, state, created_at, updated_at)
      SELECT gen_random_uuid(), m.tenant_id, m.workflow_key, m.workflow_version, 'subscriber-' || (g % 100000), false, false, 'completed', '{}', m.state,
             now() - (($RUNS - g) * 2548800.0 / $RUNS) * interval '1 second', now() - (($RUNS - g) * 2548800.0 / $RUNS) * interval '1 second'
      FROM model m, generate_series(start, least(start + 100000, $RUNS) - 1) g
      RETURNING id, tenant_id, subscriber_id, created_at),
    plans AS (
      INSERT INTO local_plans (tenant_id, local_id, run_id, subscriber_id, message_id, moment, payload, created_at)
      SELECT made.tenant_id, made.id || '/nudge', made.id, made.subscriber_id, gen_random_uuid(), made.created_at + interval '1 minute', p.payload,
             made.created_at
      FROM made, plan p)
    INSERT INTO deliveries (tenant_id, run_id, idempotency_key, device_id, kind, status, created_at, sent_at)
    SELECT tenant_id, id, id || '/nudge', gen_random_uuid(), 'plan', 'sent', created_at, created_at FROM made;
    start := start + 100000;
    COMMIT;
  END LOOP;
END \$\$;
-- What autovacuum does after a bulk insert (statistics, and the BRIN ranges summarised).
VACUUM (ANALYZE) runs, local_plans, deliveries, subscribers, devices;
SQL
say "cloned in $(( $(date +%s) - started )) s; loading the pages in headless Chromium..."
run=$("${PSQL[@]}" -c "SELECT id FROM bench_console.runs WHERE subscriber_id = 'subscriber-4242' ORDER BY created_at DESC LIMIT 1")
CONSOLE_URL="http://127.0.0.1:$PORT/console" CONSOLE_SECRET_KEY=$SK CONSOLE_RUN=$run CONSOLE_SUBSCRIBER=subscriber-4242 \
  .tools/venv/bin/python bench/console_pages.py
echo "export CONSOLE_RUNS=$("${PSQL[@]}" -c "SELECT count(*) FROM bench_console.runs")"
