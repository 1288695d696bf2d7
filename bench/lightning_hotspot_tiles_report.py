#!/usr/bin/env python3
"""Writes bench/results/lightning-hotspot-tiles.{json,md,png} from
bench/run_lightning_hotspot_tiles.sh's raw lines ("PROGRAM ROWS time ... | plan ...")."""
import argparse
import datetime
import json
import platform
import re
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def parse(path):
    """Per (program, tile rows): the throughputs, and the plan's counts of the last run."""
    points, plans, cut = {}, {}, []
    for line in open(path):
        which, rows, rest = line.split(" ", 2)
        key = (which, int(rows))
        found = re.search(r"throughput ([0-9.]+) Mcells", rest)
        if not found:
            cut.append(f"{which} build, tiles of {rows} rows ({rest.strip()})")
            continue
        points.setdefault(key, []).append(float(found.group(1)))
        plan = re.search(r"(\d+) launches, (\d+) superblocks in (\d+) kernel tasks.*?"
                         r"(\d+) box copies, (\d+) operations", rest)
        if plan:
            launches = int(plan.group(1))
            plans[key] = {"superblocks": int(plan.group(2)) / launches,
                          "kernel_tasks": int(plan.group(3)) / launches,
                          "box_copies": int(plan.group(4)) / launches,
                          "operations": int(plan.group(5)) / launches}
    return points, plans, cut


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "runs": values}


def main():
    parser = argparse.ArgumentParser()
    for flag in ("--raw", "--prefix", "--command", "--side", "--iterations", "--devices",
                 "--load-before", "--load-after"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--compare", default="")
    args = parser.parse_args()
    side = int(args.side)
    points, plans, cut = parse(args.raw)
    rows = []
    for (which, tile), values in sorted(points.items(), key=lambda item: item[0][1]):
        if which != "this":
            continue
        compared = points.get(("compared", tile))
        rows.append({"tile_rows": tile, "tile_bytes": tile * side * 4,
                     "mcells_per_s": summary(values), "plan": plans.get((which, tile)),
                     "compared_mcells_per_s": summary(compared) if compared else None,
                     "compared_plan": plans.get(("compared", tile))})
    best = max((r["mcells_per_s"]["median"] for r in rows), default=None)
    for r in rows:
        r["of_best"] = r["mcells_per_s"]["median"] / best if best else None
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    machine = (f"{platform.node()}, {platform.machine()}, "
               f"{open('/proc/cpuinfo').read().count('processor')} CPUs")
    json.dump({"date": date, "machine": machine, "command": args.command, "side": side,
               "iterations": int(args.iterations), "devices": args.devices,
               "compare": args.compare, "load_before": args.load_before,
               "load_after": args.load_after, "points": rows, "cut": cut},
              open(args.prefix + ".json", "w"), indent=1)

    def spread(m):
        return f"{m['median']:.1f} ({m['min']:.1f} – {m['max']:.1f})"

    with open(args.prefix + ".md", "w") as out:
        out.write("# HotSpot on distributed arrays: throughput against tile size\n\n")
        out.write(f"Date: {date}; machine: {machine}; devices: `{args.devices}`. Load average "
                  f"before: {args.load_before}; after: {args.load_after}.\n\n")
        out.write(f"Command: `{args.command}` (each point: `lightning_hotspot --n {side} "
                  f"--iterations {args.iterations} --chunk ROWS --devices {args.devices} "
                  f"--no-check`: a {side} x {side} chip in tiles of ROWS rows with a halo of "
                  f"one row, one launch an iteration, the halo rows copied to the neighbours "
                  f"after each; throughput in Mcells x iterations per second, median (min – max) "
                  f"over the repetitions).\n\n")
        compare = any(r["compared_mcells_per_s"] for r in rows)
        header = ("| tile rows | tile | Mcells*it/s | of the best tile | operations a launch | "
                  "kernel tasks a launch | box copies a launch |")
        rule = "| ---: | ---: | --- | ---: | ---: | ---: | ---: |"
        if compare:
            header += " compared build: Mcells*it/s | its operations a launch | this / compared |"
            rule += " --- | ---: | ---: |"
        out.write(header + "\n" + rule + "\n")
        for r in rows:
            plan = r["plan"] or {}
            line = (f"| {r['tile_rows']} | {r['tile_bytes'] / 2**10:.0f} KiB | "
                    f"{spread(r['mcells_per_s'])} | {100 * r['of_best']:.0f} % | "
                    f"{plan.get('operations', 0):.0f} | {plan.get('kernel_tasks', 0):.0f} | "
                    f"{plan.get('box_copies', 0):.0f} |")
            if compare:
                other = r["compared_mcells_per_s"]
                other_plan = r["compared_plan"] or {}
                line += (f" {spread(other)} | {other_plan.get('operations', 0):.0f} | "
                         f"{r['mcells_per_s']['median'] / other['median']:.2f} |" if other
                         else " - | - | - |")
            out.write(line + "\n")
        if compare:
            out.write(f"\nCompared build: `{args.compare}`, run alternately with this one "
                      f"(the order turned every repetition).\n")
        if cut:
            out.write("\nRuns cut at the time limit or failed (not in the medians): " +
                      "; ".join(cut) + ".\n")
    figure, axis = plt.subplots(figsize=(6.5, 4))
    xs = [r["tile_rows"] for r in rows]
    ys = [r["mcells_per_s"]["median"] for r in rows]
    axis.errorbar(xs, ys, yerr=[[r["mcells_per_s"]["median"] - r["mcells_per_s"]["min"]
                                 for r in rows],
                                [r["mcells_per_s"]["max"] - r["mcells_per_s"]["median"]
                                 for r in rows]], marker="o", capsize=3, label="this build")
    other = [r for r in rows if r["compared_mcells_per_s"]]
    if other:
        axis.plot([r["tile_rows"] for r in other],
                  [r["compared_mcells_per_s"]["median"] for r in other], marker="s",
                  linestyle="--", label="compared build")
    axis.set_xscale("log", base=2)
    axis.set_xlabel(f"tile rows (of {side} cells)")
    axis.set_ylabel("Mcells x iterations / s")
    axis.set_ylim(bottom=0)
    axis.set_title(f"HotSpot {side} x {side}, {args.devices}: tile size")
    axis.legend()
    figure.tight_layout()
    figure.savefig(args.prefix + ".png", dpi=110)


if __name__ == "__main__":
    main()
