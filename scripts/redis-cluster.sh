#!/usr/bin/env bash
# A throw-away Redis Cluster (3 masters + 3 replicas) on 127.0.0.1, for tests
# of the shared near-duplicate candidate index (issue 22).
#
# Usage:
#   scripts/redis-cluster.sh start [DIR]        start 6 nodes, create the cluster, wait until
#                                               it is ok; print the seed URLs on stdout
#   scripts/redis-cluster.sh stop [DIR]         stop the nodes started from DIR, remove their dirs
#   scripts/redis-cluster.sh status [DIR]       one line per node; exit 0 if all nodes run and report
#                                               cluster_state:ok, 3 if the running ones do but some
#                                               node is down (e.g. after kill-master), 1 otherwise
#   scripts/redis-cluster.sh kill-master [DIR]  SIGKILL one master (for failover tests); print its port
#
# DIR defaults to target/redis-cluster in the repository. The base port comes from
# REDIS_CLUSTER_PORT (default 30001); the nodes use base..base+5 and their cluster
# buses base+100..base+105 (not Redis' usual +10000: 40001.. lies in Linux's ephemeral
# range, where a client socket in TIME-WAIT can hold the port and make a node fail to
# start). `start` remembers the ports in DIR, so stop, status and kill-master do not
# need REDIS_CLUSTER_PORT again. REDIS_CLUSTER_START_TIMEOUT (default 30 s) bounds each
# of start's waits. Commands on one DIR are serialised with flock on DIR/.lock, which
# stop leaves behind (with DIR).
#
# Only our own daemons are started (daemonize yes, one directory per node); Debian's
# redis-server service is never touched. Every wait is bounded. Progress goes to stderr.
set -euo pipefail

readonly NODES=6
readonly BUS_OFFSET=100
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly REPO_ROOT
readonly START_TIMEOUT_S=${REDIS_CLUSTER_START_TIMEOUT:-30}

log() { printf 'redis-cluster: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

usage() {
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
    exit 2
}

# Each redis-cli call is bounded in time, so a hung node cannot hang the script.
rcli() {
    local port=$1
    shift
    timeout 5 redis-cli -h 127.0.0.1 -p "$port" "$@"
}

ensure_redis() {
    if command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1; then
        return 0
    fi
    local sudo=()
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null 2>&1 || die "redis-server is missing and we are not root (no sudo)"
        sudo=(sudo)
    fi
    log "installing redis-server with apt-get"
    # policy-rc.d-less machines would start Debian's own service on 6379 on install;
    # that service is not ours and we neither use nor stop it.
    if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server >&2; then
        log "apt-get install failed; running apt-get update and trying again"
        "${sudo[@]}" apt-get update -q >&2
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server >&2
    fi
    command -v redis-server >/dev/null 2>&1 || die "redis-server still missing after apt-get install"
    command -v redis-cli >/dev/null 2>&1 || die "redis-cli still missing after apt-get install"
}

# The ports of the cluster in $DIR: those remembered by `start`, else from REDIS_CLUSTER_PORT.
ports_of_dir() {
    if [[ -f "$DIR/ports" ]]; then
        cat "$DIR/ports"
    else
        local base=${REDIS_CLUSTER_PORT:-30001} i
        for ((i = 0; i < NODES; i++)); do echo $((base + i)); done
    fi
}

# Prints the pid in $1's pidfile if that pid is a live redis-server of that port.
live_pid() {
    local port=$1 pidfile="$DIR/node-$1/redis.pid" pid cmd
    [[ -f "$pidfile" ]] || return 1
    pid=$(tr -dc '0-9' <"$pidfile")
    [[ -n "$pid" && -r "/proc/$pid/cmdline" ]] || return 1
    # redis-server retitles itself "redis-server 127.0.0.1:PORT [cluster]": check both, so a
    # stale pidfile whose pid was reused by another process is never killed.
    cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)
    [[ "$cmd" == *redis-server* && "$cmd" == *":$port"* ]] || return 1
    echo "$pid"
}

# True while $1 runs; a zombie (dead, not yet reaped by whoever adopted the daemon) is not running.
is_running() {
    local state
    kill -0 "$1" 2>/dev/null || return 1
    state=$(sed -n 's/^[0-9]* (.*) \([A-Za-z]\).*/\1/p' "/proc/$1/stat" 2>/dev/null || true)
    [[ "$state" != Z ]]
}

# Waits until none of the pids runs, polling every 0.1 s at most $1 times.
wait_stopped() {
    local tries=$1 waited pid alive
    shift
    for ((waited = 0; waited < tries; waited++)); do
        alive=0
        for pid in "$@"; do is_running "$pid" && alive=1; done
        ((alive)) || return 0
        sleep 0.1
    done
}

do_stop() {
    local port pid pids=() waited
    [[ -d "$DIR" ]] || return 0
    while read -r port; do
        [[ -n "$port" ]] || continue
        if pid=$(live_pid "$port"); then
            kill -TERM "$pid" 2>/dev/null || true
            pids+=("$pid")
        fi
    done < <(ports_of_dir)
    if ((${#pids[@]})); then
        log "stopping ${#pids[@]} node(s) in $DIR"
        wait_stopped 100 "${pids[@]}" # 10 s at most
        for pid in "${pids[@]}"; do
            if is_running "$pid"; then
                log "pid $pid did not stop on SIGTERM; sending SIGKILL"
                kill -KILL "$pid" 2>/dev/null || true
            fi
        done
        wait_stopped 50 "${pids[@]}" # 5 s at most
    fi
    rm -rf "$DIR"/node-* "$DIR/ports"
}

write_config() {
    local port=$1 nodedir="$DIR/node-$1"
    mkdir -p "$nodedir"
    cat >"$nodedir/redis.conf" <<EOF
# Written by scripts/redis-cluster.sh; removed by its stop.
bind 127.0.0.1
protected-mode yes
port $port
daemonize yes
pidfile $nodedir/redis.pid
logfile $nodedir/redis.log
dir $nodedir
cluster-enabled yes
cluster-config-file $nodedir/nodes.conf
cluster-port $(($1 + BUS_OFFSET))
# Low, so that a killed master is failed over within a few seconds in tests.
cluster-node-timeout 2000
# A replica may take over whatever the age of its last contact with the master.
cluster-replica-validity-factor 0
appendonly no
save ""
# A shared space's record holds a 512-byte signature and its band buckets' fields list
# ids: hashes up to these sizes stay in Redis's compact encoding (docs/SCALING.md, "Keys and memory").
hash-max-listpack-value 1024
hash-max-listpack-entries 512
EOF
}

# redis-server cannot bind a port that another program listens on, nor (SO_REUSEADDR
# notwithstanding) one that a client connection used as its source port, even in TIME-WAIT.
# The latter happens only to ports in the kernel's ephemeral range (32768-60999 by default;
# the default ports here stay below it) and ends by itself within 60 s: wait for it, bounded.
wait_ports_free() {
    command -v ss >/dev/null 2>&1 || return 0
    local lo=32768 hi=60999 deadline=$((SECONDS + 70)) port p busy filter="" said=0
    read -r lo hi </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
    for port in "${PORTS[@]}"; do
        filter+="${filter:+ or }sport = :$port or sport = :$((port + BUS_OFFSET))"
    done
    busy=$(ss -Htanl "( $filter )" 2>/dev/null || true)
    [[ -z "$busy" ]] || die "another program listens on our ports; choose another REDIS_CLUSTER_PORT:"$'\n'"$busy"
    filter=""
    for port in "${PORTS[@]}"; do
        for p in "$port" $((port + BUS_OFFSET)); do
            ((p >= lo && p <= hi)) && filter+="${filter:+ or }sport = :$p"
        done
    done
    [[ -n "$filter" ]] || return 0
    while :; do
        busy=$(ss -Htan "( $filter )" 2>/dev/null || true)
        [[ -z "$busy" ]] && return 0
        if ((!said)); then
            log "ports in the ephemeral range $lo-$hi are held by client sockets; waiting for them to close (at most 70 s; a REDIS_CLUSTER_PORT below $((lo - NODES - BUS_OFFSET)) avoids this)"
            said=1
        fi
        ((SECONDS < deadline)) || die "ports still held after 70 s:"$'\n'"$busy"
        sleep 1
    done
}

wait_cluster_ok() {
    local deadline=$((SECONDS + START_TIMEOUT_S)) port info all_ok
    while :; do
        all_ok=1
        for port in "${PORTS[@]}"; do
            info=$(rcli "$port" cluster info 2>/dev/null | tr -d '\r' || true)
            if [[ "$info" != *"cluster_state:ok"* || "$info" != *"cluster_slots_assigned:16384"* ||
                "$info" != *"cluster_known_nodes:$NODES"* ]]; then
                all_ok=0
                break
            fi
        done
        if ((all_ok)); then
            # Every replica must have synced with its master, or killing a master right
            # after start could leave a replica that is not eligible for failover.
            for port in "${PORTS[@]}"; do
                info=$(rcli "$port" info replication 2>/dev/null | tr -d '\r' || true)
                if [[ "$info" == *"role:slave"* && "$info" != *"master_link_status:up"* ]]; then
                    all_ok=0
                    break
                fi
            done
        fi
        if ((all_ok)); then
            # CLUSTER SLOTS leaves a replica out until the other nodes have heard of its
            # replication offset (about a second after the link is up); clients build their
            # slot map from it, so wait until every node lists all nodes (one range per master
            # right after create: one "127.0.0.1" line per node).
            for port in "${PORTS[@]}"; do
                info=$(rcli "$port" cluster slots 2>/dev/null | tr -d '\r' | grep -cx '127\.0\.0\.1' || true)
                if ((${info:-0} < NODES)); then
                    all_ok=0
                    break
                fi
            done
        fi
        ((all_ok)) && return 0
        ((SECONDS < deadline)) || return 1
        sleep 0.2
    done
}

do_start() {
    local base=${REDIS_CLUSTER_PORT:-30001} port i deadline
    [[ "$base" =~ ^[0-9]+$ ]] || die "REDIS_CLUSTER_PORT must be a number, not '$base'"
    ((base >= 1024 && base + NODES - 1 + BUS_OFFSET <= 65535)) ||
        die "REDIS_CLUSTER_PORT=$base: need 1024 <= port and port+$((NODES - 1 + BUS_OFFSET)) <= 65535 (cluster bus)"
    ensure_redis
    do_stop # idempotent: a cluster from the same DIR is stopped and wiped first
    PORTS=()
    for ((i = 0; i < NODES; i++)); do PORTS+=($((base + i))); done
    for port in "${PORTS[@]}"; do
        if rcli "$port" ping >/dev/null 2>&1; then
            die "something already answers on 127.0.0.1:$port (not started from $DIR); choose another REDIS_CLUSTER_PORT"
        fi
    done
    wait_ports_free
    mkdir -p "$DIR"
    printf '%s\n' "${PORTS[@]}" >"$DIR/ports"
    log "starting $NODES nodes on 127.0.0.1:${PORTS[0]}..${PORTS[-1]} in $DIR"
    for port in "${PORTS[@]}"; do
        write_config "$port"
        redis-server "$DIR/node-$port/redis.conf" 9>&- ||
            die "redis-server on port $port failed to start; see $DIR/node-$port/redis.log"
    done
    deadline=$((SECONDS + START_TIMEOUT_S))
    for port in "${PORTS[@]}"; do
        local tries=0
        until [[ "$(rcli "$port" ping 2>/dev/null || true)" == PONG* ]]; do
            tries=$((tries + 1))
            # A node that exited (e.g. could not bind its port) is not waited for.
            if ((SECONDS >= deadline)) || { ((tries > 20)) && ! live_pid "$port" >/dev/null; }; then
                tail -n 20 "$DIR/node-$port/redis.log" >&2 2>/dev/null || true
                die "node $port is not running or does not answer PING; see $DIR/node-$port/redis.log"
            fi
            sleep 0.1
        done
    done
    local addrs=()
    for port in "${PORTS[@]}"; do addrs+=("127.0.0.1:$port"); done
    log "creating the cluster (3 masters, 1 replica each)"
    timeout 60 redis-cli --cluster create "${addrs[@]}" --cluster-replicas 1 --cluster-yes >&2 ||
        die "redis-cli --cluster create failed"
    log "waiting for cluster_state:ok on every node (at most ${START_TIMEOUT_S}s)"
    wait_cluster_ok || die "the cluster is not ok after ${START_TIMEOUT_S}s; see $DIR/node-*/redis.log"
    log "cluster ok"
    for port in "${PORTS[@]}"; do echo "redis://127.0.0.1:$port"; done
}

do_status() {
    local port pid role state info rc=0 any=0 up=0 down=0
    while read -r port; do
        [[ -n "$port" ]] || continue
        [[ -d "$DIR/node-$port" ]] || continue
        any=1
        if pid=$(live_pid "$port"); then
            info=$(rcli "$port" info replication 2>/dev/null | tr -d '\r' || true)
            role=$(sed -n 's/^role://p' <<<"$info")
            state=$(rcli "$port" cluster info 2>/dev/null | tr -d '\r' | sed -n 's/^cluster_state://p' || true)
            echo "127.0.0.1:$port pid=$pid role=${role:-?} cluster_state=${state:-?}"
            [[ "$state" == ok ]] || rc=1
            up=$((up + 1))
        else
            echo "127.0.0.1:$port down"
            down=$((down + 1))
        fi
    done < <(ports_of_dir)
    if ((!any)); then
        echo "no cluster in $DIR"
        return 1
    fi
    ((up)) || return 1
    ((rc == 0 && down)) && return 3
    return "$rc"
}

do_kill_master() {
    local port line master_port pid seen=0
    # Ask the first node that answers for the cluster's view of its masters.
    local nodes=""
    while read -r port; do
        [[ -n "$port" ]] || continue
        live_pid "$port" >/dev/null || continue
        seen=1
        nodes=$(rcli "$port" cluster nodes 2>/dev/null | tr -d '\r' || true)
        [[ -n "$nodes" ]] && break
    done < <(ports_of_dir)
    ((seen)) || die "no running node in $DIR"
    [[ -n "$nodes" ]] || die "no node in $DIR answers CLUSTER NODES"
    master_port=""
    while read -r line; do
        # <id> <ip:port@cport> <flags> <master> <ping> <pong> <epoch> <state> <slots...>
        local addr flags
        addr=$(awk '{print $2}' <<<"$line")
        flags=$(awk '{print $3}' <<<"$line")
        [[ ",$flags," == *",master,"* && ",$flags," != *fail* ]] || continue
        [[ $(awk '{print NF}' <<<"$line") -gt 8 ]] || continue # serves at least one slot range
        port=${addr#*:}
        port=${port%%@*}
        if live_pid "$port" >/dev/null; then
            master_port=$port
            break
        fi
    done <<<"$nodes"
    [[ -n "$master_port" ]] || die "no live master with slots found in $DIR"
    pid=$(live_pid "$master_port")
    log "killing master 127.0.0.1:$master_port (pid $pid) with SIGKILL"
    kill -KILL "$pid"
    local i
    for ((i = 0; i < 50; i++)); do # 5 s at most
        is_running "$pid" || break
        sleep 0.1
    done
    echo "$master_port"
}

main() {
    local cmd=${1:-}
    [[ -n "$cmd" ]] || usage
    DIR=${2:-$REPO_ROOT/target/redis-cluster}
    [[ "$DIR" == /* ]] || DIR="$PWD/$DIR"
    case "$cmd" in
        start | stop | kill-master)
            mkdir -p "$DIR"
            # One command at a time per DIR (e.g. two test binaries starting the cluster).
            if command -v flock >/dev/null 2>&1; then
                exec 9>"$DIR/.lock"
                flock -w 120 9 || die "could not lock $DIR/.lock within 120s"
            fi
            ;;
    esac
    case "$cmd" in
        start) do_start ;;
        stop) do_stop ;;
        status) do_status ;;
        kill-master) do_kill_master ;;
        -h | --help | help) usage ;;
        *)
            log "unknown command '$cmd'"
            usage
            ;;
    esac
}

main "$@"
