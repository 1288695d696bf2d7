#!/usr/bin/env bash
# Builds and runs bench_cluster_transfer on two ranks (chunk transfers and control round trips
# against raw MPI ping-pongs in the same run) and writes bench/results/cluster-transfer.{json,md}.
# Usage: bench/run_cluster_transfer.sh [repetitions, default 7]   (STRATA_BENCH_BUILD: build dir;
# STRATA_BENCH_QUIET_WAIT: seconds to wait for a quiet machine, default 300)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${STRATA_BENCH_BUILD:-$root/build/bench}
quiet_wait=${STRATA_BENCH_QUIET_WAIT:-300}
# The benchmark reads STRATA_* variables as settings and rejects unknown ones: keep these two
# script settings out of its environment.
unset STRATA_BENCH_BUILD STRATA_BENCH_QUIET_WAIT
repetitions=${1:-7}
results=$root/bench/results
mkdir -p "$results"

if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=OFF
fi
cmake --build "$build" --target bench_cluster_transfer -j2

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cmd=(mpirun -n 2 --oversubscribe "$build/bin/bench_cluster_transfer" --repetitions "$repetitions")
command_line="cd ${root} && ${cmd[*]//"$root/"/}"

source "$root/bench/quiet_machine.sh"
wait_quiet "$quiet_wait"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "running: ${command_line}" >&2
read -r busy0 _ < <(cpu_busy)
start=$(date +%s%N)
"${cmd[@]}" >"$results/.cluster-raw.json"
wall=$(echo "($(date +%s%N) - $start) / 1000000000" | bc -l)
read -r busy1 _ < <(cpu_busy)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$results" "$command_line" "$load_before" "$load_after" "$wall" \
  "$(echo "$busy1 - $busy0" | bc)" "$(mpirun --version | head -1)" <<'PYTHON'
import datetime, json, os, platform, re, socket, statistics, sys

results, command, load_before, load_after, wall, busy, mpi = sys.argv[1:]
raw = json.load(open(f"{results}/.cluster-raw.json"))
os.remove(f"{results}/.cluster-raw.json")
series = {k: v for k, v in raw.items() if isinstance(v, list)}
summary = lambda v: {"median": statistics.median(v), "min": min(v), "max": max(v), "values": v}
stats = {k: summary(v) for k, v in series.items()}
cpu = re.search(r"^model name\s*:\s*(.*)$", open("/proc/cpuinfo").read(), re.M)
machine = {"host": socket.gethostname(), "cpu": cpu.group(1) if cpu else "?",
           "logical_cpus": os.cpu_count(), "kernel": platform.release(), "mpi": mpi,
           "load_before": load_before, "load_after": load_after,
           "cpu_seconds_during_run": float(busy), "wall_seconds": float(wall)}
ratio = lambda a, b: stats[a]["median"] / stats[b]["median"]
ratios = {}
for size in ["4MiB", "64MiB"]:
    ratios[size] = {
        "bounce_vs_raw": ratio(f"strata_{size}", f"raw_{size}"),
        "bounce_vs_raw_rotating": ratio(f"strata_{size}", f"raw_rotating_{size}"),
        "stream_vs_raw": ratio(f"strata_stream_{size}", f"raw_{size}"),
        "network_vs_raw": ratio(f"network_{size}", f"raw_{size}"),
    }
date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
report = {"date": date, "command": command, "machine": machine,
          "setup": {k: v for k, v in raw.items() if not isinstance(v, list)},
          "results": stats, "ratios": ratios,
          "goal": "chunk transfer >= 90% of a raw MPI ping-pong for 4 MiB and 64 MiB"}
json.dump(report, open(f"{results}/cluster-transfer.json", "w"), indent=2)

gb = lambda k: (f"{stats[k]['median'] / 1e9:.2f} ({stats[k]['min'] / 1e9:.2f} – "
                f"{stats[k]['max'] / 1e9:.2f})")
us = lambda k: (f"{stats[k]['median'] * 1e6:.1f} ({stats[k]['min'] * 1e6:.1f} – "
                f"{stats[k]['max'] * 1e6:.1f})")
pct = lambda x: f"{x * 100:.0f} %"
lines = ["# Cluster transfers: Strata chunks vs raw MPI (two ranks, one machine)", "",
         f"Date: {date} (host `{machine['host']}`)", "", "## Machine", "",
         f"- CPU: {machine['cpu']}, {machine['logical_cpus']} logical CPUs; Linux {machine['kernel']}",
         f"- MPI: {mpi}, shared-memory transport (vader), default single-copy mechanism",
         f"- load average before: {load_before}; after: {load_after}; all processes used "
         f"{float(busy):.1f} CPU-s in the {float(wall):.0f} s run (the benchmark itself included)",
         "", "## Command", "", "```", command, "```", "", "## What is measured", "",
         f"{raw['repetitions']} repetitions, medians with min – max, in GB/s (10^9 bytes/s). "
         "*raw*: MPI_Send/MPI_Recv ping-pong on the main thread (half of the repetitions before the "
         "Strata phase, half after), one buffer reused (hot in cache when it fits); *raw rotating*: "
         "the same over 8 buffers of 64 MiB (memory not in cache, as a chunk's is). *Strata bounce*: "
         "a chunk bounces between the ranks: the driver plans a read-write operation alternately "
         "on rank 1 and rank 0, each a matched send/receive task pair on the network executors "
         "(chunks in the memory manager's host pool) plus the dropped replica — a chain of "
         "dependent transfers, like the ping-pong. *Strata stream*: 256 MiB of chunks written on "
         "rank 1 are all read by operations on rank 0 at once (transfers overlap). *Network*: the "
         "network thread alone (bulk send/receive with a control message, no tasks). Round trip: "
         "8-byte raw ping-pong vs a Strata control message answered by the peer's handler "
         f"(includes waking the waiting thread). Piece size {raw['piece_bytes'] >> 20} MiB.", "",
         "## Results", "",
         "| size | raw | raw rotating | Strata bounce | Strata stream | network alone | "
         "bounce / raw | bounce / raw rotating | stream / raw |",
         "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
for size in ["4MiB", "64MiB"]:
    r = ratios[size]
    lines.append(f"| {size[:-3]} MiB | {gb('raw_' + size)} | {gb('raw_rotating_' + size)} | "
                 f"{gb('strata_' + size)} | {gb('strata_stream_' + size)} | "
                 f"{gb('network_' + size)} | {pct(r['bounce_vs_raw'])} | "
                 f"{pct(r['bounce_vs_raw_rotating'])} | {pct(r['stream_vs_raw'])} |")
rt = ratio("strata_round_trip", "raw_round_trip")
lines += ["", f"Control round trip: raw {us('raw_round_trip')} µs, Strata {us('strata_round_trip')} µs "
          f"({rt:.1f}× raw).", ""]
best = {s: max(ratios[s]["bounce_vs_raw"], ratios[s]["stream_vs_raw"]) for s in ratios}
verdict = ", ".join(f"{s[:-3]} MiB {'met' if best[s] >= 0.9 else 'NOT met'} "
                    f"(best of bounce/stream: {pct(best[s])})" for s in ratios)
lines += [f"Goal (≥ 90 % of the raw ping-pong): {verdict}."]
open(f"{results}/cluster-transfer.md", "w").write("\n".join(lines) + "\n")
PYTHON
echo "wrote $results/cluster-transfer.md and $results/cluster-transfer.json" >&2
