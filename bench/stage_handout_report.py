#!/usr/bin/env python3
"""Writes PREFIX.md, PREFIX.json and PREFIX.png from bench_stage_handout's raw JSON."""
import argparse, datetime, json, os, platform, re, socket, statistics

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

parser = argparse.ArgumentParser(description=__doc__)
for flag in ("raw", "prefix", "command", "load-before", "load-after", "mpi"):
    parser.add_argument("--" + flag, required=True)
args = parser.parse_args()
raw = json.load(open(args.raw))
cpu_line = re.search(r"^model name\s*:\s*(.*)$", open("/proc/cpuinfo").read(), re.M)
summary = lambda v: {"median": statistics.median(v), "min": min(v), "max": max(v), "values": v}
machine = {"host": socket.gethostname(), "cpu": cpu_line.group(1) if cpu_line else "?",
           "logical_cpus": os.cpu_count(), "kernel": platform.release(), "mpi": args.mpi,
           "load_before": args.load_before, "load_after": args.load_after}
rates = {str(s): summary(v) for s, v in zip(raw["slots"], raw["handed_rates"])}
planned = summary(raw["planned_rates"])
handed = summary(raw["handed_makespans"])
by_slots = summary(raw["by_slots_makespans"]) if "by_slots_makespans" in raw else None
static = summary(raw["static_makespans"])
trips = summary(raw["round_trips_s"])
ideal = raw["list_schedule_s"]
paired = [h / ideal for h in raw["handed_makespans"]]
static_paired = [s / h for s, h in zip(raw["static_makespans"], raw["handed_makespans"])]
ratios = {"makespan_vs_list_schedule": statistics.median(paired),
          "static_round_robin_vs_handed": statistics.median(static_paired),
          "rate_1_slot_vs_planned": rates["1"]["median"] / planned["median"]}
if by_slots:
    ratios["by_slots_vs_by_estimated_start"] = statistics.median(
        [b / h for b, h in zip(raw["by_slots_makespans"], raw["handed_makespans"])])
goals = {"rate_per_s_1_slot": ">= 10000", "makespan_vs_list_schedule": "<= 1.10"}
date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
setup = {k: v for k, v in raw.items() if not isinstance(v, list)}
json.dump({"date": date, "command": args.command, "machine": machine, "setup": setup,
           "results": {"handed_rates": rates, "planned_rates": planned, "handed_makespans": handed,
                       "by_slots_makespans": by_slots, "static_makespans": static, "round_trips_s": trips},
           "ratios": ratios, "goals": goals}, open(f"{args.prefix}.json", "w"), indent=2)
spread = lambda s, f=1.0, d=0: (f"{s['median'] * f:,.{d}f} ({s['min'] * f:,.{d}f} – "
                                f"{s['max'] * f:,.{d}f})")
met = lambda ok: "met" if ok else "**not met**"
lines = [f"# Stage instances handed out over {raw['ranks']} ranks (one machine)", "",
         f"Date: {date} (host `{machine['host']}`)", "",
         f"- CPU: {machine['cpu']}, {machine['logical_cpus']} logical CPUs; Linux "
         f"{machine['kernel']}; {args.mpi}",
         f"- load average before: {args.load_before}; after: {args.load_after}",
         f"- command: `{args.command}`",
         f"- figures: median (min – max) over {raw['repetitions']} repetitions after a warm-up; "
         "ratios of medians or medians of paired ratios, same run", "",
         "## Rate: empty instances handed out on demand", "",
         f"{raw['instances']:,} independent instances of a stage whose body submits nothing; a "
         "rank is handed a new one whenever one of its own ended (the driver hears of each end "
         "at once: a tracked operation). Peer: the same number of empty operations planned at "
         "once round-robin (`Driver::run`, no feedback) — the plan layer's own rate.", "",
         "| slots per rank | instances / s | goal |", "| ---: | ---: | --- |"]
for s in raw["slots"]:
    r = rates[str(s)]
    goal = f"≥ 10,000: {met(r['median'] >= 10000)}" if s == 1 else ""
    lines.append(f"| {s} | {spread(r)} | {goal} |")
lines += [f"| planned at once (peer) | {spread(planned)} | |", "",
          f"One slot per rank: {ratios['rate_1_slot_vs_planned']:.3f} of the planned rate; each "
          "instance then costs a round trip driver → rank → driver. More slots overlap the round "
          "trips.", "",
          "## Makespan: an uneven DAG", "",
          f"{raw['dag_instances']} stage instances in layers of 8–24, each reading one or two "
          "outputs of the layer before (64-byte chunks); each instance's one task sleeps its cost "
          f"(2–40 ms, log-normal; {raw['dag_work_s']:.3f} s in all), so that 4 ranks on "
          f"{machine['logical_cpus']} cores measure scheduling, not cores. Handed out with "
          f"{raw['dag_slots']} slots per rank (the CPU pool's {raw['dag_workers']} workers and one "
          "waiting, which hides the round trip) and the costs as estimates (longest path to the "
          "end first), each to the rank where the costs of what it runs say it starts first on "
          f"its {raw['dag_workers']} workers (`HandOutOptions::workers`); beside it, to a rank "
          "with a free slot by held inputs and free slots alone (no workers given). Ideal: an offline list schedule of the same DAG on "
          f"{raw['ranks']} × {raw['dag_workers']} workers (longest path first, no transfer or "
          f"hand-out costs): {ideal:.3f} s (the work over the workers is "
          f"{raw['dag_work_s'] / raw['ranks'] / raw['dag_workers']:.3f} s). Peer: every instance "
          "planned at once, round-robin over the ranks (their dataflow orders it, nothing "
          "balances).", "",
          "| schedule | makespan s | / list schedule | goal |", "| --- | ---: | ---: | --- |",
          f"| offline list schedule (ideal) | {ideal:.3f} | 1.00 | |",
          *([f"| handed out on demand, by free slots | {spread(by_slots, 1, 3)} | "
             f"{by_slots['median'] / ideal:.3f} | |"] if by_slots else []),
          f"| handed out on demand, by estimated start | {spread(handed, 1, 3)} | "
          f"{ratios['makespan_vs_list_schedule']:.3f} | ≤ 1.10: "
          f"{met(ratios['makespan_vs_list_schedule'] <= 1.10)} |",
          f"| planned at once, round-robin (peer) | {spread(static, 1, 3)} | "
          f"{static['median'] / ideal:.3f} | |", "",
          f"Round-robin / on demand, paired: {ratios['static_round_robin_vs_handed']:.2f}×"
          + (f"; by free slots / by estimated start, paired: "
             f"{ratios['by_slots_vs_by_estimated_start']:.2f}×" if by_slots else "") + ". "
          "The median round trip of an instance (handed out → the driver heard it ended, less "
          f"its sleep): {trips['median'] * 1e3:.2f} ms ({trips['min'] * 1e3:.2f} – "
          f"{trips['max'] * 1e3:.2f}), which includes waiting in the rank's queue behind its "
          "workers."]
open(f"{args.prefix}.md", "w").write("\n".join(lines) + "\n")

figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
left.errorbar(raw["slots"], [rates[str(s)]["median"] for s in raw["slots"]],
              yerr=[[rates[str(s)]["median"] - rates[str(s)]["min"] for s in raw["slots"]],
                    [rates[str(s)]["max"] - rates[str(s)]["median"] for s in raw["slots"]]],
              marker="o", label="handed out on demand")
left.axhline(planned["median"], color="gray", linestyle="--", label="planned at once")
left.axhline(10000, color="red", linestyle=":", label="goal")
left.set_xscale("log", base=2)
left.set_yscale("log")
left.set_xlabel("slots per rank")
left.set_ylabel("empty instances / s")
left.legend()
names = ["list schedule\n(ideal)", "on demand,\nby start", "on demand,\nby slots",
         "round-robin\nat once"]
values = [ideal, handed["median"], by_slots["median"] if by_slots else 0, static["median"]]
right.bar(names, values, color=["gray", "tab:blue", "tab:cyan", "tab:orange"])
right.set_ylabel("makespan (s)")
right.set_title(f"uneven DAG, {raw['dag_instances']} instances")
figure.tight_layout()
figure.savefig(f"{args.prefix}.png", dpi=100)
