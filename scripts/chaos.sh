#!/usr/bin/env bash
# `make chaos`: the fault drill under a fleet load.
#   PostgreSQL + RabbitMQ (started if needed) → release build → `buzzkit-devicesim chaos`, which
#   starts api, CHAOS_REPLICAS workers per queue and the scheduler under a supervisor (a killed
#   process is started again after 1 s, as an orchestrator would), plays CHAOS_PHONES
#   subscribers in waves, and injects, one after another at moments when work is in flight:
#   SIGKILL of a worker of every queue (CHAOS_ROUNDS times), a scheduler pause, a PostgreSQL
#   restart and a RabbitMQ restart. It prints the fleet report (lost / duplicate / after-cancel /
#   early notifications), the recovery time after each fault, dead-letter depths and unexpected
#   process exits, and exits non-zero on any violation. CHAOS_SEED repeats a run's fault moments.
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIGURATION=${CHAOS_CONFIGURATION:-release}
PHONES=${CHAOS_PHONES:-2000}
WAVES=${CHAOS_WAVES:-24}
INTERVAL=${CHAOS_INTERVAL:-6}
LEAD=${CHAOS_LEAD:-15}
ROUNDS=${CHAOS_ROUNDS:-2}
REPLICAS=${CHAOS_REPLICAS:-2}
WORK=.chaos

bash scripts/services.sh start >/dev/null
eval "$(bash scripts/services.sh env)"
echo "== building ($CONFIGURATION)"
for product in buzzkit buzzkit-devicesim; do swift build -c "$CONFIGURATION" --product "$product" >/dev/null; done
rm -rf "$WORK"
BIN=.build/$CONFIGURATION
extra=()
[ -n "${CHAOS_SEED:-}" ] && extra+=(--seed "$CHAOS_SEED")
[ -n "${CHAOS_FAULTS:-}" ] && extra+=(--faults "$CHAOS_FAULTS")
echo "== drill: $PHONES subscribers in $WAVES waves ${INTERVAL}s apart (moment ${LEAD}s after each), $REPLICAS worker(s) per queue"
status=0
$BIN/buzzkit-devicesim chaos --binary "$BIN/buzzkit" --services scripts/services.sh --phones "$PHONES" --waves "$WAVES" \
  --interval "$INTERVAL" --lead "$LEAD" --rounds "$ROUNDS" --replicas "$REPLICAS" --work-dir "$WORK" "${extra[@]}" || status=$?
"${PSQL:-/usr/lib/postgresql/15/bin/psql}" -qtA -h 127.0.0.1 -p "${BUZZKIT_PG_PORT:-55432}" -U postgres buzzkit \
  -c "SELECT 'DROP SCHEMA ' || nspname || ' CASCADE;' FROM pg_namespace WHERE nspname LIKE 'chaos\_%'" \
  | "${PSQL:-/usr/lib/postgresql/15/bin/psql}" -qtA -h 127.0.0.1 -p "${BUZZKIT_PG_PORT:-55432}" -U postgres buzzkit >/dev/null 2>&1 || true
echo "(process logs in $WORK/)"
exit $status
