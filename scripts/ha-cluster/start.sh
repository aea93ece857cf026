#!/usr/bin/env bash
# A throw-away highly available PostgreSQL on loopback, for the failover scenario (bench/failover.ts):
# etcd, two PostgreSQL 15 nodes managed by Patroni with synchronous replication, and HAProxy sending
# connections to whichever node Patroni's REST API reports as primary. Everything lives in HA_DIR and
# goes away with stop.sh. Needs root (apt-get, and Patroni runs as the `postgres` user).
#
#   HA_DIR       folder of the cluster (default /tmp/enrollment-ha)
#   HA_SYNC      synchronous_mode: true (default) or false (the control run)
#   HA_STRICT    synchronous_mode_strict: false (default) or true, see docs/operations-failover.md
#   HA_PORT_BASE first of the loopback ports it uses (default 25430): +0 HAProxy, +1/+2 PostgreSQL,
#                +11/+12 Patroni REST, +20/+21 etcd client/peer
# Prints the DATABASE_URL through HAProxy and writes it, with the nodes, to $HA_DIR/cluster.env.
set -euo pipefail

HA_DIR=${HA_DIR:-/tmp/enrollment-ha}
HA_SYNC=${HA_SYNC:-true}
HA_STRICT=${HA_STRICT:-false}
BASE=${HA_PORT_BASE:-25430}
PG_PASSWORD=${HA_PG_PASSWORD:-failover-test}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
HERE=$(cd "$(dirname "$0")" && pwd)

log() { printf '[ha-cluster] %s\n' "$*" >&2; }

if [ "$(id -u)" != 0 ]; then
  log "run as root (apt-get, and Patroni runs as the postgres user)"
  exit 1
fi

missing=()
command -v etcd >/dev/null || missing+=(etcd-server)
command -v patroni >/dev/null || missing+=(patroni)
command -v haproxy >/dev/null || missing+=(haproxy)
[ -x "$PG_BIN/postgres" ] || missing+=(postgresql-15)
command -v curl >/dev/null || missing+=(curl)
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ -e "$HA_DIR/cluster.env" ]; then
  log "$HA_DIR already holds a cluster: run stop.sh first"
  exit 1
fi
mkdir -p "$HA_DIR"
chmod 755 "$HA_DIR"

HAPROXY_PORT=$BASE
ETCD_CLIENT=$((BASE + 20))
ETCD_PEER=$((BASE + 21))

log "etcd on 127.0.0.1:$ETCD_CLIENT"
mkdir -p "$HA_DIR/etcd"
nohup etcd --name ha-etcd --data-dir "$HA_DIR/etcd/data" \
  --listen-client-urls "http://127.0.0.1:$ETCD_CLIENT" --advertise-client-urls "http://127.0.0.1:$ETCD_CLIENT" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER" \
  --initial-cluster "ha-etcd=http://127.0.0.1:$ETCD_PEER" --initial-cluster-state new >"$HA_DIR/etcd/etcd.log" 2>&1 &
echo $! >"$HA_DIR/etcd/pid"
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$ETCD_CLIENT/health" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -fsS "http://127.0.0.1:$ETCD_CLIENT/health" >/dev/null || { log "etcd did not start; see $HA_DIR/etcd/etcd.log"; exit 1; }

node_config() {
  local name=$1 pg_port=$2 rest_port=$3 dir=$4
  cat <<YAML
scope: enrollment-ha
name: $name
log:
  level: INFO
restapi:
  listen: 127.0.0.1:$rest_port
  connect_address: 127.0.0.1:$rest_port
etcd3:
  hosts: 127.0.0.1:$ETCD_CLIENT
bootstrap:
  dcs:
    # The shortest Patroni allows (loop_wait + 2 * retry_timeout <= ttl): a test wants a failover in seconds.
    ttl: 20
    loop_wait: 2
    retry_timeout: 5
    # A primary whose PostgreSQL crashed is failed over at once instead of restarted in place.
    primary_start_timeout: 0
    maximum_lag_on_failover: 1048576
    synchronous_mode: $HA_SYNC
    synchronous_mode_strict: $HA_STRICT
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        wal_level: replica
        hot_standby: "on"
        wal_log_hints: "on"
        max_wal_senders: 10
        max_replication_slots: 10
        max_connections: 200
        synchronous_commit: "on"
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
  pg_hba:
    - local all all trust
    - host replication replicator 127.0.0.1/32 scram-sha-256
    - host all all 127.0.0.1/32 scram-sha-256
postgresql:
  listen: 127.0.0.1:$pg_port
  connect_address: 127.0.0.1:$pg_port
  data_dir: $dir/data
  bin_dir: $PG_BIN
  pgpass: $dir/pgpass
  authentication:
    superuser: {username: postgres, password: "$PG_PASSWORD"}
    replication: {username: replicator, password: "$PG_PASSWORD"}
    rewind: {username: postgres, password: "$PG_PASSWORD"}
  parameters:
    unix_socket_directories: "$dir"
    # The server notices a client that went away without a word.
    tcp_keepalives_idle: 10
    tcp_keepalives_interval: 5
    tcp_keepalives_count: 3
tags:
  nofailover: false
  noloadbalance: false
  clonefrom: false
  nosync: false
YAML
}

start_node() {
  local index=$1 name="pg$1" pg_port=$((BASE + $1)) rest_port=$((BASE + 10 + $1))
  local dir="$HA_DIR/$name"
  mkdir -p "$dir"
  node_config "$name" "$pg_port" "$rest_port" "$dir" >"$dir/patroni.yml"
  chown -R postgres:postgres "$dir"
  chmod 700 "$dir"
  log "Patroni $name: PostgreSQL 127.0.0.1:$pg_port, REST 127.0.0.1:$rest_port"
  # setsid: its own process group, so stop.sh ends it and nothing else.
  setsid runuser -u postgres -- patroni "$dir/patroni.yml" >"$HA_DIR/$name.log" 2>&1 </dev/null &
  echo $! >"$HA_DIR/$name.pid"
}

wait_role() {
  local rest_port=$1 path=$2 seconds=$3
  for _ in $(seq 1 $((seconds * 5))); do
    curl -fsS -o /dev/null "http://127.0.0.1:$rest_port/$path" 2>/dev/null && return 0
    sleep 0.2
  done
  return 1
}

start_node 1
wait_role $((BASE + 11)) primary 60 || { log "pg1 did not become primary; see $HA_DIR/pg1.log"; exit 1; }
start_node 2
wait_role $((BASE + 12)) replica 120 || { log "pg2 did not become a replica; see $HA_DIR/pg2.log"; exit 1; }
if [ "$HA_SYNC" = true ]; then
  wait_role $((BASE + 12)) sync 60 || { log "pg2 did not become the synchronous standby; see $HA_DIR/pg2.log"; exit 1; }
fi

log "HAProxy on 127.0.0.1:$HAPROXY_PORT"
cat >"$HA_DIR/haproxy.cfg" <<CFG
global
  maxconn 1000
  pidfile $HA_DIR/haproxy.pid
defaults
  mode tcp
  log global
  retries 2
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 2s
listen primary
  bind 127.0.0.1:$HAPROXY_PORT
  # Patroni answers 200 on /primary only on the node that holds the leader key and runs as primary.
  option httpchk GET /primary
  http-check expect status 200
  # A node that stops being primary has its sessions cut, so no client keeps writing to a standby.
  default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions
  server pg1 127.0.0.1:$((BASE + 1)) maxconn 200 check port $((BASE + 11))
  server pg2 127.0.0.1:$((BASE + 2)) maxconn 200 check port $((BASE + 12))
CFG
haproxy -D -f "$HA_DIR/haproxy.cfg"

URL="postgres://postgres:$PG_PASSWORD@127.0.0.1:$HAPROXY_PORT/postgres?sslmode=disable"
for _ in $(seq 1 50); do
  psql -X -q -d "$URL" -c 'select 1' >/dev/null 2>&1 && break
  sleep 0.2
done
psql -X -q -d "$URL" -c 'select 1' >/dev/null || { log "no PostgreSQL through HAProxy"; exit 1; }

cat >"$HA_DIR/cluster.env" <<ENV
HA_DATABASE_URL=$URL
HA_SYNC=$HA_SYNC
HA_STRICT=$HA_STRICT
HA_NODES=pg1:127.0.0.1:$((BASE + 1)):$((BASE + 11)),pg2:127.0.0.1:$((BASE + 2)):$((BASE + 12))
HA_DIR=$HA_DIR
ENV
log "ready (synchronous_mode: $HA_SYNC, strict: $HA_STRICT); stop with $HERE/stop.sh"
echo "$URL"
