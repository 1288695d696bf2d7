# Sourced by the bench/run_*.sh scripts: measuring other processes' CPU use, and waiting for a
# quiet machine (on 2 cores any other busy process distorts a benchmark).

# CPU seconds all processes used so far (user+nice+system+irq+softirq), and hypervisor steal,
# from /proc/stat.
cpu_busy() { awk -v hz="$(getconf CLK_TCK)" '/^cpu /{print ($2+$3+$4+$7+$8)/hz, $9/hz}' /proc/stat; }

# Waits (up to $1 seconds) for 5 seconds in which all processes together use under 0.5 CPU-s.
wait_quiet() {
  local waited b0 b1
  for ((waited = 0; waited < $1; waited += 5)); do
    read -r b0 _ < <(cpu_busy); sleep 5; read -r b1 _ < <(cpu_busy)
    awk -v d="$(echo "$b1 - $b0" | bc)" 'BEGIN{exit !(d < 0.5)}' && return
    echo "machine busy ($(echo "$b1 - $b0" | bc) CPU-s in 5 s), waiting" >&2
  done
}
