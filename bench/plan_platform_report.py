#!/usr/bin/env python3
"""Writes PREFIX.md and PREFIX.json from bench_plan_platform's raw JSON and this machine's facts."""
import argparse, datetime, json, os, platform, re, socket, statistics

parser = argparse.ArgumentParser(description=__doc__)
for flag in ("raw", "prefix", "command", "load-before", "load-after", "mpi"):
    parser.add_argument("--" + flag, required=True)
args = parser.parse_args()
raw = json.load(open(args.raw))
cpu_line = re.search(r"^model name\s*:\s*(.*)$", open("/proc/cpuinfo").read(), re.M)
summary = lambda v: {"median": statistics.median(v), "min": min(v), "max": max(v), "values": v}
stats = {k: summary(v) for k, v in raw.items() if isinstance(v, list)}
setup = {k: v for k, v in raw.items() if not isinstance(v, list)}
machine = {"host": socket.gethostname(), "cpu": cpu_line.group(1) if cpu_line else "?",
           "logical_cpus": os.cpu_count(), "kernel": platform.release(), "mpi": args.mpi,
           "load_before": args.load_before, "load_after": args.load_after}
med = lambda k: stats[k]["median"]
gbs = lambda k: setup["reduce_bytes"] / med(k) / 1e9
ratios = {
    "reduce_throughput_vs_mpi_reduce": med("mpi_reduce_seconds") / med("strata_reduce_seconds"),
    "executed_op_vs_plain_task": med("execute_us_per_op_per_rank") / med("plain_task_us"),
}
goals = {"planning_us_per_op": "<= 5", "executed_op_vs_plain_task": "<= 2",
         "reduce_throughput_vs_mpi_reduce": ">= 0.8"}
date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
json.dump({"date": date, "command": args.command, "machine": machine, "setup": setup,
           "results": stats, "ratios": ratios, "goals": goals},
          open(f"{args.prefix}.json", "w"), indent=2)
spread = lambda k, f=1.0: (f"{med(k) * f:.2f} ({stats[k]['min'] * f:.2f} – "
                           f"{stats[k]['max'] * f:.2f})")
mib = setup["reduce_bytes"] >> 20
lines = [f"# Plans: reduction vs MPI_Reduce, planning and execution vs plain tasks "
         f"({setup['ranks']} ranks, one machine)", "",
         f"Date: {date} (host `{machine['host']}`)", "",
         f"- CPU: {machine['cpu']}, {machine['logical_cpus']} logical CPUs; Linux "
         f"{machine['kernel']}; {args.mpi}",
         f"- load average before: {args.load_before}; after: {args.load_after}",
         f"- command: `{args.command}`",
         "- figures: median (min – max) over the repetitions; ratios of medians, same run", "",
         "| measure | value | peer (same run) | ratio | goal |", "| --- | --- | --- | --- | --- |",
         f"| `+` reduction of {mib} MiB of doubles per rank (GB/s of one partial) | "
         f"{gbs('strata_reduce_seconds'):.2f} | MPI_Reduce {gbs('mpi_reduce_seconds'):.2f} | "
         f"{ratios['reduce_throughput_vs_mpi_reduce']:.2f} | ≥ 0.80 |",
         f"| planning a kernel launch or box copy on the driver (µs per operation) | "
         f"{spread('plan_us_per_op')} | – | – | ≤ 5 µs |",
         f"| executing one, per operation of a rank (µs) | {spread('execute_us_per_op_per_rank')}"
         f" | plain task {spread('plain_task_us')} | "
         f"{ratios['executed_op_vs_plain_task']:.2f} | ≤ 2 |", "",
         f"{setup['ops']} operations over the ranks per repetition: kernel launches (an empty CPU "
         "kernel on a 4 KiB chunk) and, every tenth, a 64-element box copy between two chunks of "
         "the rank; planned in one batch (one message per rank), then executed. Plain tasks: the "
         "same work per rank submitted directly to each rank's runtime, on every rank at once "
         "(the empty kernel launched on the same CPU device on one of 8 chunk-backed data, every "
         "tenth a box copy on the CPU pool), without plans; the slowest rank's figure.", "",
         "On a 2-core machine the 4 ranks share two cores: the ranks' executions overlap and "
         "the reduction's tree steps and MPI's algorithm both wait for descheduled ranks, so "
         "the ratios, not the absolute figures, are what this run shows."]
open(f"{args.prefix}.md", "w").write("\n".join(lines) + "\n")
