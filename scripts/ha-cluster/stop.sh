#!/usr/bin/env bash
# Stops what start.sh started (by the process ids it recorded, nothing else) and removes HA_DIR.
set -uo pipefail

HA_DIR=${HA_DIR:-/tmp/enrollment-ha}
log() { printf '[ha-cluster] %s\n' "$*" >&2; }
[ -d "$HA_DIR" ] || { log "no cluster in $HA_DIR"; exit 0; }

alive() { kill -0 "$1" 2>/dev/null; }
wait_gone() {
  local pid=$1
  for _ in $(seq 1 100); do alive "$pid" || return 0; sleep 0.1; done
  return 1
}

# Patroni first: on SIGTERM it stops its PostgreSQL (fast shutdown) and leaves the cluster.
for node in pg1 pg2; do
  pid=$(cat "$HA_DIR/$node.pid" 2>/dev/null) || continue
  alive "$pid" || continue
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid"
  wait_gone "$pid" || kill -KILL -- "-$pid" 2>/dev/null || true
done
# A postmaster left behind (Patroni killed before it stopped it): by its own postmaster.pid.
for node in pg1 pg2; do
  pid=$(head -n1 "$HA_DIR/$node/data/postmaster.pid" 2>/dev/null) || continue
  [ -n "$pid" ] && alive "$pid" || continue
  kill -QUIT "$pid" 2>/dev/null
  wait_gone "$pid" || kill -KILL "$pid" 2>/dev/null || true
done
pid=$(cat "$HA_DIR/haproxy.pid" 2>/dev/null) && alive "$pid" && kill -TERM "$pid" && wait_gone "$pid"
pid=$(cat "$HA_DIR/etcd/pid" 2>/dev/null) && alive "$pid" && kill -TERM "$pid" && wait_gone "$pid"
rm -rf "$HA_DIR"
log "stopped and removed $HA_DIR"
