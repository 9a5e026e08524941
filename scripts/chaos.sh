#!/usr/bin/env bash
# `make chaos`: the fault drill under a fleet load.
#   PostgreSQL + RabbitMQ (started if needed) → release build → `buzzkit-devicesim chaos`, which
#   starts api, CHAOS_REPLICAS workers per queue and the scheduler under a supervisor (a killed
#   process is started again after 1 s, as an orchestrator would), plays CHAOS_PHONES
#   subscribers in waves, and injects, one after another at moments when work is in flight:
#   SIGKILL of a worker of every queue (CHAOS_ROUNDS times), a scheduler pause, a PostgreSQL
#   restart and a RabbitMQ restart. It prints the fleet report (lost / duplicate / after-cancel /
#   early notifications), the recovery time after each fault, dead-letter depths and unexpected
#   process exits, and exits non-zero on any violation. CHAOS_SEED repeats a run's fault moments;
#   CHAOS_KEEP_FAILED=1 keeps a failed drill's schema for a look.
#
# `make chaos-cluster` (`scripts/chaos.sh cluster`): the same drill against the local cluster
#   (`scripts/services.sh cluster-start`: three clustered RabbitMQ nodes, and a PostgreSQL
#   primary with a synchronous standby under pg_auto_failover's monitor), every process
#   connected to every RabbitMQ node and both PostgreSQL hosts. The faults: SIGKILL of the
#   RabbitMQ node leading the most BuzzKit queues, a worker kill, SIGKILL of the PostgreSQL
#   primary (postmaster and keeper, so the monitor promotes the standby), another worker kill;
#   each lost node is started again once the pipeline has recovered without it and rejoins
#   (the old primary as the new standby). A failed drill keeps its schema and the cluster for a
#   look (CHAOS_KEEP_FAILED=0 does not); otherwise the cluster is stopped again if this started it.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=${1:-single}
CONFIGURATION=${CHAOS_CONFIGURATION:-release}
if [ "$MODE" = cluster ]; then
  PHONES=${CHAOS_PHONES:-1200}; WAVES=${CHAOS_WAVES:-16}; INTERVAL=${CHAOS_INTERVAL:-8}; LEAD=${CHAOS_LEAD:-20}
  REPLICAS=${CHAOS_REPLICAS:-1}; WORK=.chaos-cluster; FAULTS=cluster
  cluster_was_running=$(bash scripts/services.sh cluster-status | grep -c ': running' || true)
  bash scripts/services.sh install >/dev/null
  bash scripts/services.sh cluster-start
  eval "$(bash scripts/services.sh cluster-env)"
else
  PHONES=${CHAOS_PHONES:-2000}; WAVES=${CHAOS_WAVES:-24}; INTERVAL=${CHAOS_INTERVAL:-6}; LEAD=${CHAOS_LEAD:-15}
  REPLICAS=${CHAOS_REPLICAS:-2}; WORK=.chaos; FAULTS=${CHAOS_FAULTS:-}
  bash scripts/services.sh start >/dev/null
  eval "$(bash scripts/services.sh env)"
fi
ROUNDS=${CHAOS_ROUNDS:-2}
PSQL=${PSQL:-/usr/lib/postgresql/15/bin/psql}

finish() {
  local status=$?
  if [ "$MODE" != cluster ] && [ "$status" -ne 0 ] && [ "${CHAOS_KEEP_FAILED:-0}" = 1 ]; then
    echo "(the drill's schema is kept for a look: $BUZZKIT_DATABASE_URL, schema chaos_*)"
    exit $status
  fi
  if [ "$MODE" = cluster ] && [ "$status" -ne 0 ] && [ "${CHAOS_KEEP_FAILED:-1}" = 1 ]; then
    echo "(the drill's schema and the cluster are kept for a look: bash scripts/services.sh cluster-env; make services-cluster-stop when done)"
    exit $status
  fi
  "$PSQL" -qtA "$BUZZKIT_DATABASE_URL" -c "SELECT 'DROP SCHEMA ' || nspname || ' CASCADE;' FROM pg_namespace WHERE nspname LIKE 'chaos\_%'" 2>/dev/null \
    | "$PSQL" -qtA "$BUZZKIT_DATABASE_URL" >/dev/null 2>&1 || true
  if [ "$MODE" = cluster ] && [ "$cluster_was_running" -eq 0 ]; then bash scripts/services.sh cluster-stop; fi
  exit $status
}
trap finish EXIT

echo "== building ($CONFIGURATION)"
for product in buzzkit buzzkit-devicesim; do swift build -c "$CONFIGURATION" --product "$product" >/dev/null; done
rm -rf "$WORK"
BIN=.build/$CONFIGURATION
extra=()
[ -n "${CHAOS_SEED:-}" ] && extra+=(--seed "$CHAOS_SEED")
[ -n "$FAULTS" ] && extra+=(--faults "$FAULTS")
echo "== $MODE drill: $PHONES subscribers in $WAVES waves ${INTERVAL}s apart (moment ${LEAD}s after each), $REPLICAS worker(s) per queue"
echo "   RabbitMQ: $BUZZKIT_AMQP_URL"
echo "   PostgreSQL: $BUZZKIT_DATABASE_URL"
status=0
$BIN/buzzkit-devicesim chaos --binary "$BIN/buzzkit" --services scripts/services.sh --phones "$PHONES" --waves "$WAVES" \
  --interval "$INTERVAL" --lead "$LEAD" --rounds "$ROUNDS" --replicas "$REPLICAS" --work-dir "$WORK" "${extra[@]}" || status=$?
[ "$MODE" = cluster ] && bash scripts/services.sh cluster-status
echo "(process logs in $WORK/)"
exit $status
