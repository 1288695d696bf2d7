#!/usr/bin/env python3
"""Writes PREFIX.json, PREFIX.md and PREFIX.png from bench_array_launch's raw JSON lines (one
object per run) and this machine's facts."""
import argparse, datetime, json, os, platform, re, socket, statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__)
for flag in ("raw", "prefix", "load-before", "load-after", "mpi", "opencl", "script"):
    parser.add_argument("--" + flag, required=True)
parser.add_argument("--command", action="append", default=[], help="one per run, in order")
args = parser.parse_args()
runs = [json.loads(line) for line in open(args.raw) if line.strip()]
for run, command in zip(runs, args.command):
    run["command"] = command

cpu_line = re.search(r"^model name\s*:\s*(.*)$", open("/proc/cpuinfo").read(), re.M)
machine = {"host": socket.gethostname(), "cpu": cpu_line.group(1) if cpu_line else "?",
           "logical_cpus": os.cpu_count(), "kernel": platform.release(), "mpi": args.mpi,
           "opencl": args.opencl, "load_before": args.load_before, "load_after": args.load_after}


def summary(values):
    q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "q1": q[0], "q3": q[2], "values": values}


for run in runs:
    if run.get("measure") == "launch" and "skipped" not in run:
        run["stats"] = {k: summary(v) for k, v in run.items() if isinstance(v, list)}
        s = run["stats"]
        run["overhead_percent_of_medians"] = (
            (s["distributed_us_per_launch"]["median"] / s["direct_us_per_launch"]["median"] - 1)
            * 100)
        if run.get("launches") == 1:  # a launch from idle: what the distributed side adds
            run["fixed_cost_us"] = summary([d - t for d, t in zip(
                run["distributed_us_per_launch"], run["direct_us_per_launch"])])
    if run.get("measure") == "planning" and "skipped" not in run:
        for point in run["points"]:
            point["plan_stats"] = summary(point["plan_us_per_superblock"])
            point["execute_stats"] = summary(point["execute_ms"])

date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
goals = {"launch_overhead_percent_on_1ms_kernel": "<= 1 (issue 16)",
         "paper_overhead_percent_vs_cuda": 1.6}
json.dump({"date": date, "script": args.script, "machine": machine, "goals": goals,
           "runs": runs}, open(f"{args.prefix}.json", "w"), indent=2)


def spread(st, fmt="{:.2f}"):
    return (f"{fmt.format(st['median'])} ({fmt.format(st['min'])} – {fmt.format(st['max'])})")


lines = ["# Distributed kernel launches: launch overhead and planning per superblock", "",
         f"Date: {date} (host `{machine['host']}`)", "",
         f"- CPU: {machine['cpu']}, {machine['logical_cpus']} logical CPUs; Linux "
         f"{machine['kernel']}; {args.mpi}; {args.opencl}",
         f"- load average before: {args.load_before}; after: {args.load_after}",
         f"- script: `{args.script}`; each run's exact command is given with its table",
         "- figures: median (min – max) over the repetitions", ""]

lines += ["## 1. Launch overhead: Arrays::launch vs the same kernel on the device layer", ""]
launch_runs = [r for r in runs if r.get("measure") == "launch" and r.get("launches", 200) > 1]
idle_runs = [r for r in runs if r.get("measure") == "launch" and r.get("launches") == 1]
for run in launch_runs:
    if "skipped" in run:
        lines += [f"- {run['backend']}: skipped ({run['skipped']})", ""]
        continue
    s = run["stats"]
    lines += [f"**{run['backend']}** device `{run['device']}` — `{run['command']}`", "",
              f"{run['launches']} launches in a row, then a wait, per repetition; "
              f"{run['repetitions']} repetitions alternating direct and distributed (ABBA) after "
              f"an untimed warm-up of each. Kernel: {run['elements']} floats, blocks of "
              f"{run['block']}, {run['iterations']} dependent multiply-adds per element "
              f"(calibrated to ~{run['target_ms']:g} ms), updating the array in place, so "
              f"consecutive launches depend on each other; {run['superblocks_per_launch']} "
              f"superblock per distributed launch, its chunk used directly. Results of both "
              f"agree: {'yes' if run['results_agree'] else 'NO'}.", "",
              "| measure | value |", "| --- | --- |",
              f"| direct launch on the device's compute queue (µs per launch) | "
              f"{spread(s['direct_us_per_launch'])} |",
              f"| Arrays::launch (µs per launch, until synchronize() returns) | "
              f"{spread(s['distributed_us_per_launch'])} |",
              f"| overhead, paired per repetition (%) | {spread(s['overhead_percent'])} |",
              f"| overhead, ratio of medians (%) | {run['overhead_percent_of_medians']:.2f} |",
              f"| time inside Arrays::launch on the driver (µs per launch) | "
              f"{spread(s['distributed_in_launch_us_per_launch'])} |"]
    if "direct_idle_us_per_launch" in s:
        lines += [f"| device idle between kernels, direct (µs per launch) | "
                  f"{spread(s['direct_idle_us_per_launch'])} |",
                  f"| device idle between kernels, distributed (µs per launch) | "
                  f"{spread(s['distributed_idle_us_per_launch'])} |"]
    if "distributed_gap_us" in s:
        lines += [f"| gap from one kernel's last block to the next one's first, direct (µs) | "
                  f"{spread(s['direct_gap_us'])} |",
                  f"| the same gap, distributed (µs) | {spread(s['distributed_gap_us'])} |",
                  f"| kernel's last block → runtime finishes its task (µs) | "
                  f"{spread(s['distributed_gap_kernel_end_to_task_finish_us'])} |"]
    if "distributed_next_task_ahead_us" in s:  # results from before 2026-11-30 lack it
        lines += [f"| next kernel's task started before a kernel ended, by (µs; negative: after) | "
                  f"{spread(s['distributed_next_task_ahead_us'])} |"]
    if "direct_gap_us" in s:
        lines += ["", "Gaps: per repetition the median over its launches, then median (min – max) "
                  "over the repetitions; the steps are timed by each block of the CPU kernel and "
                  "a runtime task observer, on the steady clock."]
    lines += ["", f"Goal (issue 16): ≤ 1 % on a 1 ms kernel; the lightning paper reports 1.6 % "
              "against hand-written CUDA (§4.6).", ""]

lines += ["## 2. A launch from idle: the fixed cost of a batch", "",
          "One launch of a short kernel (calibrated to ~0.1 ms on the device layer), then a wait, "
          "per repetition, direct and distributed alternating (ABBA) after an untimed warm-up. "
          "What Arrays::launch adds here is paid once per batch of launches, not per launch: the "
          "hand-offs between threads from the call to the kernel (driver → the rank's plan "
          "thread → the device's executor) and from the kernel's end back to synchronize(). "
          "Fixed cost: per repetition, distributed − direct; median (min – max).", "",
          "| backend | device | direct µs | Arrays::launch + synchronize() µs | fixed cost µs | "
          "inside launch() µs | synchronize() µs |",
          "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
for run in idle_runs:
    if "skipped" in run:
        lines += [f"| {run['backend']} | skipped ({run['skipped']}) | | | | | |"]
        continue
    s = run["stats"]
    fixed = run["fixed_cost_us"]
    lines += [f"| {run['backend']} | {run['device']} | {spread(s['direct_us_per_launch'])} | "
              f"{spread(s['distributed_us_per_launch'])} | {spread(fixed)} | "
              f"{spread(s['distributed_in_launch_us_per_launch'])} | "
              f"{spread(s['distributed_synchronize_us'])} |"]
lines += [""] + [f"- {run['backend']}: `{run['command']}`" for run in idle_runs] + [""]

lines += ["## 3. Planning time per superblock", "",
          "Time inside Arrays::launch (annotation → access regions, chunk lookup, plans, and "
          "handing them to the ranks) divided by the superblocks, and separately the execution "
          "(from launch() returning to synchronize() returning). Trivial kernel (`global i => "
          "readwrite data[i]`), WorkDistribution::tiled; the array is either one chunk per "
          "device (`row_blocks(n / places)`) or one chunk per superblock. With one superblock the "
          "time inside launch() is mostly the hand-off: the driver's own rank takes its plan on "
          "a thread of its own, whose wake-up the driver pays (tens of µs on a VM); that hand-off "
          "used to sit in the execution column, when plans went through the network thread.", ""]
for run in [r for r in runs if r.get("measure") == "planning"]:
    if "skipped" in run:
        lines += [f"- {run['ranks']} rank(s): skipped ({run['skipped']})", ""]
        continue
    lines += [f"**{run['ranks']} rank(s)**, {run['grid_blocks']} blocks of {run['block']} "
              f"threads, {run['places']} device(s) in all — `{run['command']}`", "",
              "| data | superblocks | chunks | box copies | planning (µs per superblock) | "
              "execution (ms per launch) |", "| --- | ---: | ---: | ---: | --- | --- |"]
    for p in run["points"]:
        lines += [f"| {p['layout']} | {p['superblocks']} | {p['chunks']} | "
                  f"{p['box_copies_per_launch']} | {spread(p['plan_stats'])} | "
                  f"{spread(p['execute_stats'])} |"]
    lines += [""]
open(f"{args.prefix}.md", "w").write("\n".join(lines) + "\n")

# The figure: per-launch times, and planning per superblock against the superblocks.
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
labels, xs = [], 0
for run in launch_runs:
    if "skipped" in run:
        continue
    s = run["stats"]
    for i, (key, name, color) in enumerate((("direct_us_per_launch", "direct", "tab:blue"),
                                            ("distributed_us_per_launch", "Arrays::launch",
                                             "tab:orange"))):
        st = s[key]
        left.bar(xs + i * 0.4, st["median"], 0.4, color=color,
                 yerr=[[st["median"] - st["min"]], [st["max"] - st["median"]]], capsize=4,
                 label=name if xs == 0 else None)
    left.annotate(f"{run['overhead_percent_of_medians']:+.1f} %",
                  (xs + 0.4, s["distributed_us_per_launch"]["max"]), ha="center",
                  va="bottom", fontsize=9)
    labels.append((xs + 0.2, f"{run['backend']}\n{run['iterations']} it."))
    xs += 1
left.set_xticks([x for x, _ in labels], [t for _, t in labels])
left.set_ylabel("µs per launch (median, min–max)")
left.set_title(f"~1 ms kernel, {launch_runs[0].get('launches', 200)} launches then a wait")
left.legend(loc="lower right")
for run in [r for r in runs if r.get("measure") == "planning" and "skipped" not in r]:
    for layout, style in (("chunk per device", "-o"), ("chunk per superblock", "--s")):
        pts = [p for p in run["points"] if p["layout"] == layout]
        right.errorbar([p["superblocks"] for p in pts], [p["plan_stats"]["median"] for p in pts],
                       yerr=[[p["plan_stats"]["median"] - p["plan_stats"]["min"] for p in pts],
                             [p["plan_stats"]["max"] - p["plan_stats"]["median"] for p in pts]],
                       fmt=style, capsize=3, label=f"{run['ranks']} rank(s), {layout}")
right.set_xscale("log")
right.set_yscale("log")
right.set_xlabel("superblocks per launch")
right.set_ylabel("planning µs per superblock")
right.set_title("time inside Arrays::launch / superblocks")
right.legend(fontsize=8)
fig.tight_layout()
fig.savefig(f"{args.prefix}.png", dpi=110)
