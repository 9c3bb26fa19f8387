# Sourced by the side-by-side scripts: wait_for_quiet waits until the 1-minute load average
# is below LOAD_BELOW, polling every 20 s for at most MAX_WAIT seconds (then runs anyway),
# and sets `waited` (seconds), `quiet` (yes/no) and LOAD0 (the three load averages after
# the wait). The caller defines `say`.
wait_for_quiet() {
  say "waiting for the 1-minute load average to fall below $LOAD_BELOW (at most $MAX_WAIT s)"
  waited=0
  quiet=yes
  while awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v m="$LOAD_BELOW" 'BEGIN{exit !(l >= m)}'; do
    if [ "$waited" -ge "$MAX_WAIT" ]; then
      quiet=no
      say "warning: still busy after $MAX_WAIT s (load $(cut -d' ' -f1-3 /proc/loadavg)): running anyway"
      break
    fi
    printf '  %s load %s\n' "$(date +%H:%M:%S)" "$(cut -d' ' -f1-3 /proc/loadavg)" >&2
    sleep 20
    waited=$((waited + 20))
  done
  LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
}
