#!/usr/bin/env bash
# Local PostgreSQL 15 and RabbitMQ 3.10 for development and CI, without Docker.
#
#   scripts/services.sh start    install what is missing, start both, wait, print URLs (no-op if running)
#   scripts/services.sh stop     stop only what this script started (by pid file)
#   scripts/services.sh status   say what runs
#   scripts/services.sh install  install the Debian packages the build and services need
#   scripts/services.sh env      print export lines for BUZZKIT_DATABASE_URL / BUZZKIT_AMQP_URL
#   scripts/services.sh restart-rabbitmq | restart-postgres   (used by fault tests)
#   scripts/services.sh cluster-start | cluster-stop | cluster-status | cluster-env |
#     cluster-kill-rabbitmq-leader | cluster-kill-postgres-primary | cluster-restore
#                                three clustered RabbitMQ nodes and PostgreSQL with automatic
#                                failover, beside (not instead of) the single-node services;
#                                see scripts/cluster.sh
#
# Data lives under .services/ (git-ignored) in the repository. Ports (loopback only) can be
# changed with BUZZKIT_PG_PORT (default 55432) and BUZZKIT_AMQP_PORT (default 55672).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA="$ROOT/.services"
PG_PORT=${BUZZKIT_PG_PORT:-55432}
AMQP_PORT=${BUZZKIT_AMQP_PORT:-55672}
DIST_PORT=$((AMQP_PORT + 1))
EPMD_PORT=${BUZZKIT_EPMD_PORT:-54369}
PG_BIN=/usr/lib/postgresql/15/bin
RMQ_BIN=/usr/lib/rabbitmq/bin
PG_DIR="$DATA/postgres"
RMQ_DIR="$DATA/rabbitmq"
DB_URL="postgres://postgres@127.0.0.1:$PG_PORT/buzzkit"
AMQP_URL="amqp://guest:guest@127.0.0.1:$AMQP_PORT/%2f"

log() { printf '[services] %s\n' "$*" >&2; }

# Keeps the kernel from handing out the services' listening ports (single node and cluster) as
# the local port of an outgoing connection: one such connection, or its TIME_WAIT, made a
# restart of RabbitMQ fail with eaddrinuse. Best effort: a container may not let us write it.
reserve_ports() {
  local file=/proc/sys/net/ipv4/ip_local_reserved_ports ours current
  ours="$PG_PORT,$AMQP_PORT,$DIST_PORT,$EPMD_PORT,56721-56723,56731-56733,56769,56821-56823"
  [ -w "$file" ] || return 0
  current=$(cat "$file")
  echo "${current:+$current,}$ours" > "$file" 2>/dev/null || log "could not reserve ports $ours (ephemeral ports may collide)"
}

install_packages() {
  local need=()
  [ -x "$PG_BIN/postgres" ] || need+=(postgresql-15)
  [ -x "$RMQ_BIN/rabbitmq-server" ] || need+=(rabbitmq-server)
  [ -f /usr/include/postgresql/libpq-fe.h ] || need+=(libpq-dev)
  [ -f /usr/include/amqp.h ] || need+=(librabbitmq-dev)
  [ -f /usr/include/microhttpd.h ] || need+=(libmicrohttpd-dev)
  [ -f /usr/include/x86_64-linux-gnu/curl/curl.h ] || [ -f /usr/include/curl/curl.h ] || need+=(libcurl4-openssl-dev)
  [ -f /usr/include/nghttp2/nghttp2.h ] || need+=(libnghttp2-dev)
  [ -f /usr/include/openssl/evp.h ] || need+=(libssl-dev)
  command -v wrk >/dev/null || need+=(wrk)
  command -v docker-compose >/dev/null || need+=(docker-compose)
  command -v pgbench >/dev/null || [ -x "$PG_BIN/pgbench" ] || need+=(postgresql-contrib)
  command -v perf >/dev/null || need+=(linux-perf)
  # The console's browser test (`make test`): headless Chromium and its driver.
  command -v chromium >/dev/null || need+=(chromium)
  command -v chromedriver >/dev/null || need+=(chromium-driver)
  if [ ${#need[@]} -gt 0 ]; then
    log "installing: ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  fi
  install_tools
}

# The deployment check's and the console test's Python tools, pinned, in a venv of their own (.tools/venv, git-ignored).
TOOLS="$ROOT/.tools/venv"
TOOLS_PINS="kubernetes-validate==1.37.0 jsonschema==4.26.0 PyYAML==6.0.2 selenium==4.27.1"
install_tools() {
  if [ -f "$TOOLS/pins" ] && [ "$(cat "$TOOLS/pins")" = "$TOOLS_PINS" ]; then return; fi
  log "installing the deployment check's tools into .tools/venv: $TOOLS_PINS"
  rm -rf "$TOOLS"
  if ! python3 -m venv "$TOOLS" 2>/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
    /usr/bin/python3 -m venv "$TOOLS"
  fi
  # shellcheck disable=SC2086
  "$TOOLS/bin/pip" install -q --disable-pip-version-check $TOOLS_PINS
  echo "$TOOLS_PINS" >"$TOOLS/pins"
}

# PostgreSQL refuses root; its user must be able to walk down to the data folder.
make_traversable() {
  local d="$1"
  while [ "$d" != "/" ]; do
    if ! runuser -u postgres -- test -x "$d" 2>/dev/null; then chmod o+x "$d"; fi
    d=$(dirname "$d")
  done
}

pg_running() { [ -f "$PG_DIR/data/postmaster.pid" ] && kill -0 "$(head -1 "$PG_DIR/data/postmaster.pid")" 2>/dev/null; }

start_postgres() {
  if pg_running; then log "postgres already running on $PG_PORT"; return; fi
  mkdir -p "$PG_DIR"
  make_traversable "$PG_DIR"
  chown postgres:postgres "$PG_DIR"
  # Text sorts and compares byte by byte (LC_COLLATE C, here and for the buzzkit database
  # below): every key of the hot tables is text (tenant, subscriber, local and event ids), and
  # PostgreSQL 15 compares text under any other collation, C.UTF-8 included, through strcoll.
  # The order is the same as C.UTF-8's (code points); see docs/operations.md.
  if [ ! -f "$PG_DIR/data/PG_VERSION" ]; then
    runuser -u postgres -- "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth=trust \
      --encoding=UTF8 --locale=C.UTF-8 --lc-collate=C >"$PG_DIR/initdb.log" 2>&1
    mkdir -p "$PG_DIR/sock" && chown postgres:postgres "$PG_DIR/sock"
    cat >>"$PG_DIR/data/postgresql.conf" <<CONF
port = $PG_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$PG_DIR/sock'
max_connections = 300
fsync = on
synchronous_commit = on
log_min_messages = warning
CONF
  fi
  # Memory and checkpoints for a machine of this size (24 GiB), added to a data directory made
  # before them too. With 256 MB of buffers the runs table (about 1 GB after a bench) was read
  # back from the page cache on most row reads, and with a 1 GB WAL a checkpoint started every
  # 30 s under load, each followed by a full-page image of every page written again.
  if ! grep -q '^# buzzkit tuning' "$PG_DIR/data/postgresql.conf"; then
    cat >>"$PG_DIR/data/postgresql.conf" <<CONF
# buzzkit tuning
shared_buffers = 2GB
max_wal_size = 8GB
checkpoint_timeout = 15min
CONF
  fi
  # Statement statistics, loaded but not counting (counting costs a few percent of every
  # statement): an operator, or the bench's window-writes phase, switches them on with
  # ALTER SYSTEM SET pg_stat_statements.track = 'top' and pg_reload_conf().
  if ! grep -q '^# buzzkit statements' "$PG_DIR/data/postgresql.conf"; then
    cat >>"$PG_DIR/data/postgresql.conf" <<CONF
# buzzkit statements
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = none
CONF
  fi
  runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/postgres.log" -w -t 30 start >/dev/null
  for _ in $(seq 1 60); do
    "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" && break; sleep 0.5
  done
  "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='buzzkit'" | grep -q 1 \
    || "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres --template=template0 --encoding=UTF8 \
         --lc-collate=C --lc-ctype=C.UTF-8 buzzkit
  log "postgres ready on 127.0.0.1:$PG_PORT"
}

stop_postgres() {
  if pg_running; then runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null; log "postgres stopped"; fi
}

rmq_env() {
  export HOME="$RMQ_DIR/home"
  export RABBITMQ_NODENAME="buzzkit@localhost"
  export RABBITMQ_NODE_PORT="$AMQP_PORT"
  export RABBITMQ_DIST_PORT="$DIST_PORT"
  export ERL_EPMD_PORT="$EPMD_PORT"
  export RABBITMQ_MNESIA_BASE="$RMQ_DIR/mnesia"
  export RABBITMQ_LOG_BASE="$RMQ_DIR/log"
  export RABBITMQ_ENABLED_PLUGINS_FILE="$RMQ_DIR/enabled_plugins"
  export RABBITMQ_CONFIG_FILE="$RMQ_DIR/rabbitmq.conf"
  export RABBITMQ_PID_FILE="$RMQ_DIR/rabbitmq.pid"
  export ERL_CRASH_DUMP="$RMQ_DIR/erl_crash.dump"
  # One Erlang scheduler (RabbitMQ's default is one per core, each bound to its core): on a
  # machine whose cores PostgreSQL and BuzzKit's processes share, RabbitMQ spent about 16 % less
  # CPU per message so (docs/operations.md). BUZZKIT_RABBITMQ_ERL_ARGS= gives the defaults back.
  export RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="${BUZZKIT_RABBITMQ_ERL_ARGS-+S 1:1}"
}

rmq_running() { [ -f "$RMQ_DIR/rabbitmq.pid" ] && kill -0 "$(cat "$RMQ_DIR/rabbitmq.pid")" 2>/dev/null; }

start_rabbitmq() {
  if rmq_running; then log "rabbitmq already running on $AMQP_PORT"; return; fi
  mkdir -p "$RMQ_DIR/home" "$RMQ_DIR/mnesia" "$RMQ_DIR/log"
  echo "[]." >"$RMQ_DIR/enabled_plugins"
  cat >"$RMQ_DIR/rabbitmq.conf" <<CONF
listeners.tcp.default = 127.0.0.1:$AMQP_PORT
loopback_users.guest = true
vm_memory_high_watermark.relative = 0.4
disk_free_limit.absolute = 500MB
CONF
  (rmq_env; setsid nohup "$RMQ_BIN/rabbitmq-server" </dev/null >"$RMQ_DIR/server.log" 2>&1 &)
  for _ in $(seq 1 40); do [ -f "$RMQ_DIR/rabbitmq.pid" ] && break; sleep 0.25; done
  (rmq_env; "$RMQ_BIN/rabbitmqctl" wait "$RMQ_DIR/rabbitmq.pid" --timeout 90 >/dev/null) \
    || { log "rabbitmq failed to start; see $RMQ_DIR/server.log"; tail -20 "$RMQ_DIR/server.log" >&2; exit 1; }
  log "rabbitmq ready on 127.0.0.1:$AMQP_PORT"
}

stop_rabbitmq() {
  if rmq_running; then
    local pid; pid=$(cat "$RMQ_DIR/rabbitmq.pid")
    (rmq_env; "$RMQ_BIN/rabbitmqctl" shutdown >/dev/null 2>&1) || kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    rm -f "$RMQ_DIR/rabbitmq.pid"
    log "rabbitmq stopped"
  fi
  # epmd outlives the broker; stop the one on our own port only.
  local p
  for p in $(pgrep -x epmd || true); do
    if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "ERL_EPMD_PORT=$EPMD_PORT"; then kill "$p" 2>/dev/null || true; fi
  done
}

print_env() {
  echo "export BUZZKIT_DATABASE_URL='$DB_URL'"
  echo "export BUZZKIT_AMQP_URL='$AMQP_URL'"
}

case "${1:-start}" in
  start)
    install_packages
    reserve_ports
    start_postgres
    start_rabbitmq
    echo "BUZZKIT_DATABASE_URL=$DB_URL"
    echo "BUZZKIT_AMQP_URL=$AMQP_URL"
    ;;
  stop) stop_rabbitmq; stop_postgres ;;
  status)
    pg_running && echo "postgres: running ($DB_URL)" || echo "postgres: stopped"
    rmq_running && echo "rabbitmq: running ($AMQP_URL)" || echo "rabbitmq: stopped"
    ;;
  env) print_env ;;
  install) install_packages ;;
  restart-rabbitmq) stop_rabbitmq; reserve_ports; start_rabbitmq ;;
  stop-rabbitmq) stop_rabbitmq ;;
  start-rabbitmq) start_rabbitmq ;;
  restart-postgres) stop_postgres; start_postgres ;;
  stop-postgres) stop_postgres ;;
  start-postgres) start_postgres ;;
  cluster-start) reserve_ports; exec bash "$ROOT/scripts/cluster.sh" start ;;
  cluster-*) exec bash "$ROOT/scripts/cluster.sh" "${1#cluster-}" ;;
  *) echo "usage: $0 start|stop|status|env|restart-rabbitmq|restart-postgres|cluster-start|cluster-stop|cluster-status|cluster-env" >&2; exit 2 ;;
esac
