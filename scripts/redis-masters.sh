# Sourced by the measurement scripts of the shared space (scripts/redis-memory.sh,
# scripts/shared-throughput.sh): starts a Redis Cluster in "$cluster" (stopped on exit) and
# sets `seeds` (comma-separated URLs) and `masters` (the master ports); `used` prints the
# bytes of memory the masters use together, `backlog` the bytes of it their replication
# backlogs take (`repl-backlog-size`, 1 MB a master by default: filled by the first
# megabyte written, then fixed whatever the space holds).
trap 'bash scripts/redis-cluster.sh stop "$cluster" >/dev/null 2>&1 || true' EXIT
seeds="$(bash scripts/redis-cluster.sh start "$cluster" 2>/dev/null | paste -sd, -)"
masters=()
for url in ${seeds//,/ }; do
  port=${url##*:}
  if redis-cli -p "$port" role | head -1 | grep -q master; then masters+=("$port"); fi
done
# The sum over the masters of one field of INFO memory.
memory_field() {
  local total=0 port
  for port in "${masters[@]}"; do
    total=$((total + $(redis-cli -p "$port" info memory | tr -d '\r' | sed -n "s/^$1://p")))
  done
  echo "$total"
}
used() { memory_field used_memory; }
backlog() { memory_field mem_replication_backlog; }
