#!/usr/bin/env bash
# `make demo`: BuzzKit's main job, end to end on this machine.
#   PostgreSQL + RabbitMQ (started if needed) → build → migrate → a tenant → the APNs stand-in's
#   keys → api, one worker per queue and the scheduler as separate processes → 1,000 simulated
#   phones (real SDK instances) with the leg-day workflow's moment about a minute ahead →
#   the fleet report and two run summaries → everything it started is stopped again.
set -euo pipefail
cd "$(dirname "$0")/.."
PHONES=${DEMO_PHONES:-1000}
LEAD=${DEMO_LEAD_SECONDS:-60}
# DEMO_WAVES > 1 deals the subscribers into waves posted DEMO_WAVE_INTERVAL seconds apart.
WAVES=${DEMO_WAVES:-1}
WAVE_INTERVAL=${DEMO_WAVE_INTERVAL:-20}
# Every behaviour, the crowded ones (72 plans a subscriber) dealt out a third as often as the
# others so a large fleet's plans still reach their phones well before the moment.
BASE_MIX=healthy,force-quit,low-power,offline,completes,two-devices,offline-through-cancel,budget-exhausted,traveller,last-second,logout-switch,reinstalled,denied,app-own-requests,tapper,locked,done-from-the-lock-screen,snoozer
DEMO_MIX=${DEMO_MIX:-$BASE_MIX,$BASE_MIX,$BASE_MIX,crowded,crowded-two-devices}
MIX="--mix $DEMO_MIX"
PORT=${DEMO_PORT:-18480}
APNS_PORT=${DEMO_APNS_PORT:-18497}
DEMO=.demo
CONFIGURATION=${DEMO_CONFIGURATION:-debug}
BIN=.build/$CONFIGURATION
PSQL=(/usr/lib/postgresql/15/bin/psql -qtA -h 127.0.0.1 -p "${BUZZKIT_PG_PORT:-55432}" -U postgres buzzkit)

say() { printf '\n== %s\n' "$*"; }

services_were_running=$(bash scripts/services.sh status | grep -c ': running' || true)
bash scripts/services.sh start >/dev/null
eval "$(bash scripts/services.sh env)"

say "building"
for product in buzzkit buzzkit-apns buzzkit-devicesim; do swift build -c "$CONFIGURATION" --product "$product" >/dev/null; done

rm -rf "$DEMO" && mkdir -p "$DEMO/logs"
export BUZZKIT_DB_SCHEMA=demo BUZZKIT_QUEUE_PREFIX=demo. BUZZKIT_HTTP_PORT=$PORT BUZZKIT_LOG_FORMAT=json
export BUZZKIT_SHUTDOWN_GRACE_SECONDS=10 BUZZKIT_PREFETCH=500
"${PSQL[@]}" -c "DROP SCHEMA IF EXISTS demo CASCADE" >/dev/null

say "migrating, creating the tenant and the APNs stand-in's keys"
$BIN/buzzkit migrate --schema demo
$BIN/buzzkit tenant create demo-gym --json > "$DEMO/keys.json"
$BIN/buzzkit-apns setup --dir "$DEMO/apns" > "$DEMO/apns-setup.txt"
eval "$(grep '^export' "$DEMO/apns-setup.txt")"
export BUZZKIT_APNS_URL=https://127.0.0.1:$APNS_PORT
echo "tenant $(python3 -c 'import json; print(json.load(open(".demo/keys.json"))["tenantId"])')"

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "$services_were_running" -lt 2 ]; then bash scripts/services.sh stop >/dev/null; fi
}
trap cleanup EXIT

say "starting api, a worker per queue and the scheduler (logs in $DEMO/logs)"
$BIN/buzzkit api 2>"$DEMO/logs/api.log" & pids+=($!)
for queue in trigger trigger-bulk plan-dispatch plan-dispatch-bulk ack-ingest fallback-check; do
  $BIN/buzzkit worker --queues "$queue" 2>"$DEMO/logs/worker-$queue.log" & pids+=($!)
done
$BIN/buzzkit scheduler 2>"$DEMO/logs/scheduler.log" & pids+=($!)
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null && break; sleep 0.2; done

say "$PHONES subscribers in $WAVES wave(s) ${WAVE_INTERVAL}s apart, moment ${LEAD}s after each (behaviours dealt in turn: $DEMO_MIX)"
status=0
# The simulated phones stand for separate devices, each with its own CPU; here they share two
# cores with the server. So the simulator goes ahead of the server in the kernel's scheduler
# (nice -5, when this user may raise a priority): a phone's 30 s of iOS background time is then
# not spent waiting for the server's CPU, while the server's answers, slow or not, are still
# what the phones wait for.
NICE=()
if nice -n -5 true 2>/dev/null; then NICE=(nice -n -5); fi
"${NICE[@]}" $BIN/buzzkit-devicesim fleet --api "http://127.0.0.1:$PORT" --keys "$DEMO/keys.json" --apns-dir "$DEMO/apns" \
  --apns-port "$APNS_PORT" --phones "$PHONES" --lead "$LEAD" --waves "$WAVES" --interval "$WAVE_INTERVAL" $MIX --report-json "$DEMO/report.json" || status=$?

say "two run summaries (GET /v1/runs/{id})"
SK=$(python3 -c 'import json; print(json.load(open(".demo/keys.json"))["secretKey"])')
samples=()
# A window's decision is kept beside its run (window_decisions), not written into its state.
for kind in "scheduled on device" "fallback sent"; do
  outcome=$([ "$kind" = "fallback sent" ] && echo "fallback_reason" || echo "acknowledged_at")
  id=$("${PSQL[@]}" -c "SELECT r.id FROM demo.runs r JOIN demo.window_decisions d ON d.run_id = r.id WHERE r.status = 'completed' AND d.$outcome IS NOT NULL LIMIT 1")
  [ -n "$id" ] || continue
  samples+=("$id ($kind)")
  echo "-- a run whose step ended \"$kind\":"
  curl -s -H "Authorization: Bearer $SK" "http://127.0.0.1:$PORT/v1/runs/$id" | python3 -m json.tool
done

say "the console"
echo "open      http://127.0.0.1:$PORT/console"
echo "sign in   with the secret key in $DEMO/keys.json (secretKey)"
for sample in "${samples[@]}"; do echo "run       http://127.0.0.1:$PORT/console#/run/${sample% (*}   (${sample#* (}"; done
if [ -t 0 ] && [ -z "${DEMO_NO_CONSOLE:-}" ]; then
  read -r -p "The API stays up for the console; press Enter to stop everything. " _ || true
else
  echo "(not a terminal: stopping now; \`make console\` serves this demo's data again)"
fi
exit $status
