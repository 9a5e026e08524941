#!/usr/bin/env bash
# `make chaos-cluster`: the cluster drill under a fleet load.
#   The local cluster (`scripts/services.sh cluster-start`: three clustered RabbitMQ nodes,
#   quorum queues on all three, and a PostgreSQL primary with a synchronous standby under
#   pg_auto_failover's monitor) → release build → `buzzkit-devicesim chaos --faults cluster`:
#   api, CHAOS_REPLICAS workers per queue and the scheduler connected to every RabbitMQ node and
#   to both PostgreSQL hosts (target_session_attrs=read-write); CHAOS_PHONES subscribers in
#   waves; then, while work is in flight: SIGKILL of the RabbitMQ node that leads the most
#   BuzzKit queues, a worker kill, SIGKILL of the PostgreSQL primary (postmaster and keeper,
#   so the monitor promotes the standby), another worker kill. Each lost node is started
#   again once the pipeline has recovered without it, and rejoins (the old primary as the new
#   standby). Prints the fleet report, each fault's recovery time (a canary walking every
#   stage) and the time until the node was back, and exits non-zero on any lost, duplicate,
#   early or after-cancel notification. It stops the cluster again if it started it.
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIGURATION=${CHAOS_CONFIGURATION:-release}
PHONES=${CHAOS_PHONES:-1200}
WAVES=${CHAOS_WAVES:-16}
INTERVAL=${CHAOS_INTERVAL:-8}
LEAD=${CHAOS_LEAD:-20}
REPLICAS=${CHAOS_REPLICAS:-1}
WORK=.chaos-cluster

cluster_was_running=$(bash scripts/services.sh cluster-status | grep -c ': running' || true)
bash scripts/services.sh install >/dev/null
bash scripts/services.sh cluster-start
eval "$(bash scripts/services.sh cluster-env)"
finish() {
  local status=$?
  # The drill's schema goes, unless the drill failed: then it stays for a look (and the cluster
  # keeps running); the next run drops it.
  if [ "$status" -ne 0 ] && [ "${CHAOS_KEEP_FAILED:-1}" = 1 ]; then
    echo "(the drill's schema and the cluster are kept for a look: bash scripts/services.sh cluster-env; make services-cluster-stop when done)"
    exit $status
  fi
  "${PSQL:-/usr/lib/postgresql/15/bin/psql}" -qtA "$BUZZKIT_DATABASE_URL" \
    -c "SELECT 'DROP SCHEMA ' || nspname || ' CASCADE;' FROM pg_namespace WHERE nspname LIKE 'chaos\_%'" 2>/dev/null \
    | "${PSQL:-/usr/lib/postgresql/15/bin/psql}" -qtA "$BUZZKIT_DATABASE_URL" >/dev/null 2>&1 || true
  if [ "$cluster_was_running" -eq 0 ]; then bash scripts/services.sh cluster-stop; fi
  exit $status
}
trap finish EXIT
echo "== building ($CONFIGURATION)"
for product in buzzkit buzzkit-devicesim; do swift build -c "$CONFIGURATION" --product "$product" >/dev/null; done
rm -rf "$WORK"
BIN=.build/$CONFIGURATION
extra=()
[ -n "${CHAOS_SEED:-}" ] && extra+=(--seed "$CHAOS_SEED")
echo "== cluster drill: $PHONES subscribers in $WAVES waves ${INTERVAL}s apart (moment ${LEAD}s after each), $REPLICAS worker(s) per queue"
echo "   RabbitMQ: $BUZZKIT_AMQP_URL"
echo "   PostgreSQL: $BUZZKIT_DATABASE_URL"
status=0
$BIN/buzzkit-devicesim chaos --binary "$BIN/buzzkit" --services scripts/services.sh --phones "$PHONES" --waves "$WAVES" \
  --interval "$INTERVAL" --lead "$LEAD" --replicas "$REPLICAS" --work-dir "$WORK" --faults cluster "${extra[@]}" || status=$?
bash scripts/services.sh cluster-status
echo "(process logs in $WORK/)"
exit $status
