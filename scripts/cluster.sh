#!/usr/bin/env bash
# The local cluster for `make services-cluster` and `make chaos-cluster`, on loopback, without
# Docker (called through scripts/services.sh cluster-<action>):
#   three clustered RabbitMQ 3.10 nodes (AMQP 56721-56723), whose quorum queues get a replica
#   on each node; and PostgreSQL 15 under pg_auto_failover (Debian's postgresql-15-auto-failover):
#   a monitor (56731), a primary and a synchronous standby (56732, 56733) that the monitor
#   promotes when the primary is lost.
#
#   cluster.sh start | stop | status | env      start (install, wait), stop only what it started, say, print URLs
#   cluster.sh kill-rabbitmq-leader             SIGKILL the node that leads the most BuzzKit queues
#   cluster.sh kill-postgres-primary            SIGKILL the primary: keeper, postmaster and backends
#   cluster.sh restore                          start again what a kill stopped; wait until it rejoined
#   cluster.sh rmqctl N ARGS... | rmq-queues N ARGS... | pga ARGS... | pg-states   the CLIs, set up
#
# Data lives under .services/cluster/ (git-ignored). The monitor's failure detection is
# shortened (pg_tune_failover: a lost primary is replaced in about 9 s instead of about 50 s).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASE=${CLUSTER_BASE:-$ROOT/.services/cluster}
log() { printf '[cluster %s] %s\n' "$(date +%T.%3N)" "$*" >&2; }

# ----------------------------------------------------------------------------- RabbitMQ
RMQ_BIN=/usr/lib/rabbitmq/bin
RMQ=$BASE/rmq
RMQ_EPMD_PORT=${CLUSTER_EPMD_PORT:-56769}      # own epmd, so stopping it cannot hurt anybody else
RMQ_N=3
amqp_port() { echo $((56720 + $1)); }            # 56721 56722 56723
dist_port() { echo $((56820 + $1)); }            # 56821 56822 56823
node_name() { echo "bzc$1@localhost"; }

rmq_env() {
  local d="$RMQ/n$1"
  export HOME="$RMQ/home"                        # .erlang.cookie shared by all nodes and the CLI
  export RABBITMQ_NODENAME="$(node_name "$1")"
  export RABBITMQ_NODE_PORT="$(amqp_port "$1")"
  export RABBITMQ_DIST_PORT="$(dist_port "$1")"
  export ERL_EPMD_PORT="$RMQ_EPMD_PORT"
  export ERL_EPMD_ADDRESS=127.0.0.1              # epmd is started by the first node/CLI; keep it on loopback
  export RABBITMQ_MNESIA_BASE="$d/mnesia"
  export RABBITMQ_LOG_BASE="$d/log"
  export RABBITMQ_ENABLED_PLUGINS_FILE="$d/enabled_plugins"
  export RABBITMQ_CONFIG_FILE="$d/rabbitmq.conf"
  export RABBITMQ_PID_FILE="$d/rabbitmq.pid"
  export ERL_CRASH_DUMP="$d/erl_crash.dump"
  # 2 cores shared by 3 brokers: one scheduler, one dirty-IO scheduler, 4 async threads each
  # (3.10 already passes +sbwt none +sbwtdcpu none +sbwtdio none, i.e. no busy-waiting).
  export RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="${CLUSTER_RMQ_ERL_ARGS-+S 1:1 +SDio 1 +A 4}"
}
rmqctl() { local i=$1; shift; (rmq_env "$i"; "$RMQ_BIN/rabbitmqctl" -n "$(node_name "$i")" "$@"); }
rmqq() { local i=$1; shift; (rmq_env "$i"; "$RMQ_BIN/rabbitmq-queues" -n "$(node_name "$i")" "$@"); }
rmq_pid() { cat "$RMQ/n$1/rabbitmq.pid" 2>/dev/null; }
rmq_node_running() { local p; p=$(rmq_pid "$1") && [ -n "$p" ] && kill -0 "$p" 2>/dev/null; }

rmq_prepare() {
  mkdir -p "$RMQ/home"
  if [ ! -f "$RMQ/home/.erlang.cookie" ]; then
    # Same cookie for every node and for the CLI; Erlang insists on mode 400.
    head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' | tr a-f A-F >"$RMQ/home/.erlang.cookie"
    chmod 400 "$RMQ/home/.erlang.cookie"
  fi
  local i d
  for i in $(seq 1 $RMQ_N); do
    d="$RMQ/n$i"; mkdir -p "$d/mnesia" "$d/log"
    echo "[]." >"$d/enabled_plugins"
    cat >"$d/rabbitmq.conf" <<CONF
listeners.tcp.default = 127.0.0.1:$(amqp_port "$i")
loopback_users.guest = true
vm_memory_high_watermark.absolute = ${CLUSTER_RMQ_WATERMARK:-512MB}
disk_free_limit.absolute = 500MB
cluster_partition_handling = ${CLUSTER_RMQ_PARTITION:-autoheal}
net_ticktime = ${CLUSTER_RMQ_TICKTIME:-10}
distribution.listener.interface = 127.0.0.1
raft.wal_max_size_bytes = 67108864
collect_statistics_interval = 30000
CONF
  done
}

rmq_start_node_bg() {
  local i=$1 d="$RMQ/n$1"
  if rmq_node_running "$i"; then log "rabbitmq n$i already running"; return; fi
  rm -f "$d/rabbitmq.pid"                         # a stale pid file (after SIGKILL) fools 'rabbitmqctl wait'
  # $! is the rabbitmq-server wrapper, which lives exactly as long as beam.smp; unlike the pid
  # file it exists at once, so a node that dies while booting (port taken...) is noticed.
  (rmq_env "$i"; setsid nohup "$RMQ_BIN/rabbitmq-server" </dev/null >"$d/server.log" 2>&1 & echo $! >"$d/launch.pid")
}

rmq_wait_node() {   # wait for boot; if the node dies while booting, start it again (up to 3 tries)
  local i=$1 d="$RMQ/n$1" try pid
  for try in 1 2 3; do
    pid=$(cat "$d/launch.pid")
    for _ in $(seq 1 240); do
      rmqctl "$i" -q await_startup --timeout 5 >/dev/null 2>&1 && return 0
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    log "rabbitmq n$i is not up (try $try): $(grep -o 'dist_port_already_used[^}]*' "$d/server.log" | head -1)"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    rmq_start_node_bg "$i"
  done
  log "rabbitmq n$i failed to start; see $d/server.log"; tail -5 "$d/server.log" >&2; return 1
}

start_rmq() {
  rmq_prepare
  local i
  # Start all nodes first, then wait: after a full stop each node waits for its peers (mnesia),
  # so starting and waiting one by one would hang on node 1.
  for i in $(seq 1 $RMQ_N); do rmq_start_node_bg "$i"; done
  for i in $(seq 1 $RMQ_N); do rmq_wait_node "$i"; done
  if [ ! -f "$RMQ/clustered" ]; then
    for i in $(seq 2 $RMQ_N); do
      # join_cluster prints harmless feature-flag warnings and tracked-connection errors on stderr
      rmqctl "$i" stop_app >>"$RMQ/join.log" 2>&1
      rmqctl "$i" reset >>"$RMQ/join.log" 2>&1
      rmqctl "$i" join_cluster "$(node_name 1)" >>"$RMQ/join.log" 2>&1
      rmqctl "$i" start_app >>"$RMQ/join.log" 2>&1
    done
    touch "$RMQ/clustered"
  fi
  log "rabbitmq cluster ready: amqp://guest:guest@127.0.0.1:$(amqp_port 1) ,$(amqp_port 2) ,$(amqp_port 3)"
}

start_rmq_node() { rmq_start_node_bg "$1"; rmq_wait_node "$1"; log "rabbitmq n$1 running"; }

stop_rmq() {
  local i pid
  for i in $(seq $RMQ_N -1 1); do
    if rmq_node_running "$i"; then
      pid=$(rmq_pid "$i")
      rmqctl "$i" shutdown >/dev/null 2>&1 || kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 80); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      log "rabbitmq n$i stopped"
    fi
    rm -f "$RMQ/n$i/rabbitmq.pid"
  done
  local p
  for p in $(pgrep -x epmd || true); do
    if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "ERL_EPMD_PORT=$RMQ_EPMD_PORT"; then kill "$p" 2>/dev/null || true; fi
  done
}



status_rmq() {
  local i
  for i in $(seq 1 $RMQ_N); do
    if rmq_node_running "$i"; then
      echo "rabbitmq n$i: running pid $(rmq_pid "$i") amqp 127.0.0.1:$(amqp_port "$i") rss $(($(awk '/VmRSS/{print $2}' /proc/"$(rmq_pid "$i")"/status) / 1024)) MB"
    else echo "rabbitmq n$i: stopped"; fi
  done
}

# ----------------------------------------------------------------------------- PostgreSQL + pg_auto_failover
PG_BIN=/usr/lib/postgresql/15/bin
PG=$BASE/pg
PG_MON_PORT=56731
pg_node_port() { echo $((56731 + $1)); }          # node1 56732, node2 56733
MON_URI="postgres://autoctl_node@127.0.0.1:$PG_MON_PORT/pg_auto_failover?sslmode=disable"

# pg_autoctl as postgres, with its config/state/pid files kept under $PG/xdg (not ~postgres),
# a UTF-8 locale for initdb, and pg_ctl of PostgreSQL 15 on PATH.
pga() {
  runuser -u postgres -- env LC_ALL=C.UTF-8 LANG=C.UTF-8 \
    XDG_CONFIG_HOME="$PG/xdg/config" XDG_DATA_HOME="$PG/xdg/data" XDG_RUNTIME_DIR="$PG/xdg/run" \
    PATH="$PG_BIN:/usr/bin:/bin" pg_autoctl "$@"
}
pg_dir() { if [ "$1" = monitor ]; then echo "$PG/monitor"; else echo "$PG/node$1"; fi; }
pg_keeper_pid() { head -1 "$PG/xdg/run/pg_autoctl$(pg_dir "$1")/pg_autoctl.pid" 2>/dev/null; }
pg_running() { local p; p=$(pg_keeper_pid "$1") && [ -n "$p" ] && kill -0 "$p" 2>/dev/null; }

pg_run_bg() {   # start the pg_autoctl service (keeper or monitor) of $1 in its own session
  local n=$1
  if pg_running "$n"; then log "pg $n already running"; return; fi
  (setsid nohup runuser -u postgres -- env LC_ALL=C.UTF-8 LANG=C.UTF-8 \
      XDG_CONFIG_HOME="$PG/xdg/config" XDG_DATA_HOME="$PG/xdg/data" XDG_RUNTIME_DIR="$PG/xdg/run" \
      PATH="$PG_BIN:/usr/bin:/bin" pg_autoctl run --pgdata "$(pg_dir "$n")" \
      </dev/null >>"$PG/log/$(basename "$(pg_dir "$n")").log" 2>&1 &)
}

pg_wait_port() { for _ in $(seq 1 120); do "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$1" && return 0; sleep 0.25; done; return 1; }

# "node1:primary/primary node2:secondary/secondary" (reported/assigned), from the monitor.
pg_states() {
  pga show state --pgdata "$PG/monitor" --json 2>/dev/null | python3 -c '
import json, sys
print(" ".join("%s:%s/%s" % (n["nodename"], n["current_group_state"], n["assigned_group_state"]) for n in json.load(sys.stdin)))'
}
pg_wait_healthy() {   # until one primary and one secondary are reported (with Postgres running) and assigned
  local st
  for _ in $(seq 1 ${1:-240}); do
    st=$(mon_sql "select string_agg(reportedstate || '/' || goalstate, ' ' order by reportedstate)
                  from pgautofailover.node where reportedpgisrunning and reporttime > now() - interval '5 s'" 2>/dev/null || true)
    [ "$st" = "primary/primary secondary/secondary" ] && { pg_states; return 0; }
    sleep 0.5
  done
  log "not healthy: $(pg_states)"; return 1
}

pg_overrides() {   # appended after pg_autoctl's include line, so they win over its auto-tuning (25% RAM...)
  cat >>"$1/postgresql.conf" <<CONF
# cluster-proto overrides
max_connections = ${2:-300}
shared_buffers = ${3:-256MB}
effective_cache_size = 2GB
maintenance_work_mem = 64MB
work_mem = 4MB
wal_keep_size = 512MB
CONF
}

mon_sql() { runuser -u postgres -- "$PG_BIN/psql" -h 127.0.0.1 -p $PG_MON_PORT -d pg_auto_failover -XAtqc "$1"; }

# Wait until node(s) have reported to the monitor since $1 (a monitor timestamp) with Postgres
# running and their assigned state reached; $2 = SQL condition on the nodes, $3 = expected count.
pg_wait_reported() {
  local since=$1 cond=$2 want=$3 n
  for _ in $(seq 1 240); do
    n=$(mon_sql "select count(*) from pgautofailover.node where reporttime > '$since' and reportedpgisrunning
                 and reportedstate = goalstate and ($cond)" 2>/dev/null || echo 0)
    [ "$n" = "$want" ] && return 0
    sleep 0.5
  done
  log "nodes did not report in time: $(pg_states)"; return 1
}

start_pg() {
  mkdir -p "$PG/xdg/config" "$PG/xdg/data" "$PG/xdg/run" "$PG/log"
  chown -R postgres:postgres "$PG"; chmod 700 "$PG/xdg/run"
  # monitor
  if [ ! -f "$PG/monitor/PG_VERSION" ]; then
    pga create monitor --pgctl "$PG_BIN/pg_ctl" --pgdata "$PG/monitor" --pgport $PG_MON_PORT \
      --hostname 127.0.0.1 --auth trust --no-ssl >>"$PG/log/create-monitor.log" 2>&1
    pga config set --pgdata "$PG/monitor" postgresql.listen_addresses 127.0.0.1 >/dev/null
    pg_overrides "$PG/monitor" 100 64MB
  fi
  pg_run_bg monitor
  pg_wait_port $PG_MON_PORT || { log "monitor did not start"; tail "$PG/log/monitor.log" >&2; return 1; }
  for _ in $(seq 1 40); do mon_sql "select 1" >/dev/null 2>&1 && break; sleep 0.25; done
  local i since first
  if [ ! -f "$PG/node1/PG_VERSION" ] || [ ! -f "$PG/node2/PG_VERSION" ]; then
    # First start: node 2 is built with pg_basebackup from node 1, so node 1 must run first.
    for i in 1 2; do
      if [ ! -f "$PG/node$i/PG_VERSION" ]; then
        pga create postgres --pgctl "$PG_BIN/pg_ctl" --pgdata "$PG/node$i" --pgport "$(pg_node_port $i)" \
          --listen 127.0.0.1 --hostname 127.0.0.1 --name "node$i" --username postgres --dbname buzzkit \
          --monitor "$MON_URI" --auth trust --no-ssl >>"$PG/log/create-node$i.log" 2>&1
        [ "$i" = 1 ] && pg_overrides "$PG/node1"     # node 2 gets postgresql.conf through pg_basebackup
      fi
      pg_run_bg "$i"
      [ "$i" = 1 ] && pg_wait_port "$(pg_node_port 1)"
    done
  else
    # Restart: start the node the monitor still has as primary first and wait until it has
    # reported "Postgres running"; a standby reporting while the primary's keeper is still
    # starting makes the monitor see "keeper up, Postgres down" and fail over at once.
    since=$(mon_sql "select now()")
    first=$(mon_sql "select nodeid from pgautofailover.node where goalstate in ('primary','wait_primary','single')
                     order by nodeid limit 1")
    first=${first:-1}
    pg_run_bg "$first"
    pg_wait_reported "$since" "nodeid = $first" 1
    pg_run_bg $((3 - first))
  fi
  [ -f "$PG/monitor.tuned" ] && pg_tune_failover
  pg_wait_healthy >/dev/null
  log "postgres ready: $(pg_uri)"
}

pg_uri() {  # multi-host URI from the monitor, database buzzkit, user postgres, sslmode=disable
  pga show uri --pgdata "$PG/monitor" --formation default 2>/dev/null \
    | sed -e 's#^postgres://#postgres://postgres@#' -e 's#sslmode=prefer#sslmode=disable#'
}

stop_pg() {   # keepers first (the standby, then the primary), the monitor last
  local n p pgid order
  case " $(pg_states 2>/dev/null)" in *" node1:primary"*|*" node1:wait_primary"*) order="2 1" ;; *) order="1 2" ;; esac
  for n in $order monitor; do
    pg_running "$n" || continue
    p=$(pg_keeper_pid "$n")
    pgid=$(ps -o pgid= -p "$p" | tr -d ' ')
    pga stop --pgdata "$(pg_dir "$n")" >/dev/null 2>&1 || kill "$p" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$p" 2>/dev/null || break; sleep 0.25; done
    if kill -0 "$p" 2>/dev/null; then
      # A keeper busy retrying its monitor can sit on its SIGTERM: stop its group and then
      # its PostgreSQL directly (a fast shutdown, as pg_autoctl stop would have done).
      log "pg $n did not stop within 15 s; stopping its keeper group $pgid and its postgres"
      kill -9 -- "-$pgid" 2>/dev/null || true
      [ -f "$(pg_dir "$n")/postmaster.pid" ] && runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$(pg_dir "$n")" -m fast -w -t 30 stop >/dev/null 2>&1 || true
    fi
    log "pg $n stopped"
  done
}

# Simulate losing the primary's machine: SIGKILL its pg_autoctl processes (one process group,
# started with setsid), the postmaster and all postmaster children (they have their own groups).
kill_pg_primary() {
  local st victim i pm pgid pids
  st=$(pg_states)
  for i in 1 2; do case " $st" in *" node$i:primary/"*|*" node$i:wait_primary/"*) victim=$i ;; esac; done
  [ -n "${victim:-}" ] || { log "no primary in: $st"; return 1; }
  pm=$(head -1 "$PG/node$victim/postmaster.pid")
  pgid=$(ps -o pgid= -p "$(pg_keeper_pid "$victim")" | tr -d ' ')
  pids="$(pgrep -g "$pgid" | tr '\n' ' ') $(pgrep -P "$pm" | tr '\n' ' ')"
  log "SIGKILL node$victim (primary): keeper group $pgid, postmaster $pm, pids $pids"
  kill -9 $pids 2>/dev/null || true
  echo "node$victim"
}

# Shorter failure detection on the monitor (defaults: period 5000, timeout 5000, retries 2,
# retry_delay 2000, unhealthy 20000, demote 30000, startup_grace 10000 ms).
pg_tune_failover() {
  runuser -u postgres -- "$PG_BIN/psql" -h 127.0.0.1 -p $PG_MON_PORT -d pg_auto_failover -qX <<'SQL' >/dev/null
ALTER SYSTEM SET pgautofailover.health_check_period = 1000;
ALTER SYSTEM SET pgautofailover.health_check_timeout = 1000;
ALTER SYSTEM SET pgautofailover.health_check_max_retries = 1;
ALTER SYSTEM SET pgautofailover.health_check_retry_delay = 500;
ALTER SYSTEM SET pgautofailover.node_considered_unhealthy_timeout = 3000;
ALTER SYSTEM SET pgautofailover.primary_demote_timeout = 5000;
SELECT pg_reload_conf();
SQL
  # A primary cut off from monitor and standby demotes itself after this many seconds; keep it
  # below primary_demote_timeout (5 s) so two primaries can never accept writes at once.
  local i
  for i in 1 2; do
    [ -f "$PG/node$i/PG_VERSION" ] || continue
    pga config set --pgdata "$PG/node$i" timeout.network_partition_timeout 3 >/dev/null
    pg_running "$i" && pga reload --pgdata "$PG/node$i" >/dev/null 2>&1 || true
  done
  touch "$PG/monitor.tuned"
}



# ----------------------------------------------------------------------------- the drill's actions
install() {
  command -v pg_autoctl >/dev/null && return
  log "installing postgresql-15-auto-failover"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends postgresql-15-auto-failover >/dev/null
}

print_env() {
  local urls="" i
  for i in $(seq 1 $RMQ_N); do urls+="${urls:+,}amqp://guest:guest@127.0.0.1:$(amqp_port "$i")/%2f"; done
  echo "export BUZZKIT_AMQP_URL='$urls'"
  echo "export BUZZKIT_DATABASE_URL='$(pg_uri)'"
}

# The node (1..3) leading the most BuzzKit work queues, each weighted by 1 + its messages.
rmq_busiest_index() {
  local i out
  for i in $(seq 1 $RMQ_N); do
    rmq_node_running "$i" || continue
    out=$(rmqctl "$i" -q list_queues name type leader messages --no-table-headers 2>/dev/null) && break
  done
  echo "${out:-}" | awk '$2 == "quorum" && $1 !~ /\.dlq$/ { w[$3] += 1 + $4 }
    END { for (n in w) if (w[n] > best) { best = w[n]; node = n }; if (node == "") exit 1; sub(/^bzc/, "", node); sub(/@.*/, "", node); print node }'
}

kill_rabbitmq_leader() {
  local i; i=$(rmq_busiest_index) || { log "no running node leads a quorum queue"; return 1; }
  log "SIGKILL rabbitmq n$i (leads the most BuzzKit queues), beam pid $(rmq_pid "$i")"
  kill -9 "$(rmq_pid "$i")"
  echo "rabbitmq $i" >>"$BASE/killed"
}

kill_postgres_primary() {
  local node; node=$(kill_pg_primary) || return 1
  echo "postgres ${node#node}" >>"$BASE/killed"
}

# Starts again what the kills stopped and waits until each is back in its cluster (a RabbitMQ
# node booted and clustered; the old primary rewound and streaming as the standby).
restore() {
  [ -f "$BASE/killed" ] || return 0
  local kind n
  while read -r kind n; do
    case "$kind" in
      rabbitmq) start_rmq_node "$n" ;;
      postgres) pg_run_bg "$n"; pg_wait_healthy >/dev/null; log "postgres node$n back: $(pg_states)" ;;
    esac
  done <"$BASE/killed"
  rm -f "$BASE/killed"
}

cluster_status() {
  status_rmq
  local n
  for n in monitor 1 2; do
    if pg_running "$n"; then echo "postgres $n: running (keeper pid $(pg_keeper_pid "$n"))"; else echo "postgres $n: stopped"; fi
  done
  pg_running monitor && echo "postgres states: $(pg_states)" || true
}

case "${1:-}" in
  start) install; mkdir -p "$BASE"; start_pg; pg_tune_failover; start_rmq; rm -f "$BASE/killed"; print_env ;;
  stop) stop_rmq; stop_pg; rm -f "$BASE/killed" ;;
  status) cluster_status ;;
  env) print_env ;;
  kill-rabbitmq-leader) kill_rabbitmq_leader ;;
  kill-postgres-primary) kill_postgres_primary ;;
  restore) restore ;;
  rmqctl) shift; rmqctl "$@" ;;
  rmq-queues) shift; rmqq "$@" ;;
  pga) shift; pga "$@" ;;
  pg-states) pg_states ;;
  *) echo "usage: $0 start|stop|status|env|kill-rabbitmq-leader|kill-postgres-primary|restore" >&2; exit 2 ;;
esac
