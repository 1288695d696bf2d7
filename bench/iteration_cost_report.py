#!/usr/bin/env python3
"""Writes PREFIX.md and PREFIX.json from bench_iteration_cost's raw JSON (1 and 4 ranks, the CPU
device in host memory and in a space of its own)."""
import argparse, datetime, json, os, platform, re, socket, statistics

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--raw", nargs="+", required=True)
for flag in ("prefix", "command", "load-before", "load-after", "mpi"):
    parser.add_argument("--" + flag, required=True)
args = parser.parse_args()
runs = [json.load(open(path)) for path in args.raw]
cpu_line = re.search(r"^model name\s*:\s*(.*)$", open("/proc/cpuinfo").read(), re.M)
summary = lambda v: {"median": statistics.median(v), "min": min(v), "max": max(v), "values": v}
machine = {"host": socket.gethostname(), "cpu": cpu_line.group(1) if cpu_line else "?",
           "logical_cpus": os.cpu_count(), "kernel": platform.release(), "mpi": args.mpi,
           "load_before": args.load_before, "load_after": args.load_after}
goals = {1: 50.0, 4: 200.0}
date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
out = {"date": date, "command": args.command, "machine": machine, "goals_us": goals, "runs": []}
spread = lambda s: f"{s['median']:.1f} ({s['min']:.1f} – {s['max']:.1f})"
lines = ["# The fixed cost of one iteration of a host loop (plan a round, read a small result)", "",
         f"Date: {date} (host `{machine['host']}`)", "",
         f"- CPU: {machine['cpu']}, {machine['logical_cpus']} logical CPUs; Linux "
         f"{machine['kernel']}; {args.mpi}",
         f"- load average before: {args.load_before}; after: {args.load_after}",
         f"- command: `{args.command}`",
         "- figures: µs per iteration, median (min – max) over the repetitions (each the mean of "
         "its iterations), after a warm-up", "",
         "A round, k-means shape with nothing to compute: the driver writes 8-byte centers (home "
         "rank 0), every rank runs a CPU kernel on its resident chunk reading the centers and "
         "writing an 8-byte partial, a `+` reduction over the partials, and the driver fetches "
         "the 8-byte sum and decides whether to go on. Also timed apart: planning a round alone "
         "(the driver's side), planning and `wait_all()` without the read, and a write + fetch "
         "of the 8-byte result alone. Peers: on one rank a plain runtime task submitted and "
         "waited for per round; on four, `MPI_Bcast` + `MPI_Reduce` of 8 bytes per round (before "
         "the Strata phase, MPI alone). CPU device memory: `host`, the CPU device works in host "
         "memory (the default); `own`, it has a memory space of its own, so chunks the host "
         "wrote are copied into it and results copied out (`memory.cpu_device_memory`).", "",
         "| ranks | CPU device memory | round | goal | plan alone | plan + wait | write + fetch | "
         "peer | round / peer |",
         "| ---: | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
for raw in runs:
    ranks = raw["ranks"]
    stats = {k: summary(v) for k, v in raw.items() if isinstance(v, list)}
    peer_key = "plain_task_us" if ranks == 1 else "mpi_us"
    peer_name = "plain task" if ranks == 1 else "MPI bcast+reduce"
    goal = goals.get(ranks)
    met = stats["round_us"]["median"] <= goal if goal else None
    memory = raw.get("cpu_device_memory", "own")
    out["runs"].append({"ranks": ranks, "cpu_device_memory": memory,
                        "iterations": raw["iterations"], "results": stats, "goal_met": met})
    lines.append(f"| {ranks} | {memory} | {spread(stats['round_us'])} | ≤ {goal:.0f}: "
                 f"{'met' if met else '**not met**'} | {spread(stats['plan_only_us'])} | "
                 f"{spread(stats['plan_wait_us'])} | {spread(stats['write_fetch_us'])} | "
                 f"{peer_name} {spread(stats[peer_key])} | "
                 f"{stats['round_us']['median'] / stats[peer_key]['median']:.0f}× |")
by_memory = {(r["ranks"], r["cpu_device_memory"]): r["results"]["round_us"]["median"]
             for r in out["runs"]}
compared = [r for r in sorted({r["ranks"] for r in out["runs"]})
            if (r, "own") in by_memory and (r, "host") in by_memory]
lines += [""] if compared else []
for ranks in compared:
    lines.append(f"- {ranks} rank(s): a round in host memory is "
                 f"{by_memory[(ranks, 'own')] / by_memory[(ranks, 'host')]:.2f}× faster than "
                 f"with the CPU device's own space (medians, same run).")
json.dump(out, open(f"{args.prefix}.json", "w"), indent=2)
open(f"{args.prefix}.md", "w").write("\n".join(lines) + "\n")
