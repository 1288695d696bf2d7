#!/usr/bin/env python3
"""Writes OUT.md and OUT.png from OUT.json (bench/run_dataset_spliter.sh): per workload, the time
against blocks per core for each variant, the split's flatness (slowest / fastest) and its
speedup over sequential C++ and over Dask's best scheduler at every block count.

usage: dataset_spliter_report.py OUT COMMAND
"""
import datetime
import json
import platform
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    out, command = sys.argv[1], sys.argv[2]
    rows = [json.loads(line) for line in open(out + ".json") if line.strip()]
    workloads = ["histogram", "kmeans"]
    md = [f"# The spliter experiment on data sets\n",
          f"- machine: {cpu_model()}, {rows[0]['cores']} cores; date: "
          f"{datetime.date.today().isoformat()}",
          f"- command: `{command}`",
          f"- points: {rows[0]['points']} of 8 doubles; histogram: 16 x 16 bins of two "
          f"coordinates; k-means: 8 clusters, 5 iterations from fixed centers",
          "- Strata: block = one task per block, rechunk = the records moved to one block per "
          "core first (timed), split = one task per partition (the blocks of a rank grouped by "
          "its workers); every result checked against sequential C++",
          "- Dask: one task per block, the blocks already in memory, under the threaded "
          "scheduler and a local distributed cluster of one single-threaded worker per core; "
          "`best` is the faster of the two at each count",
          "- each cell: the median of the repetitions (± half their range)\n"]
    figure, axes = plt.subplots(1, 2, figsize=(11, 4))
    for axis, workload in zip(axes, workloads):
        mine = [r for r in rows if r["workload"] == workload]
        sequential = next(r["median"] for r in mine if r["variant"] == "sequential")
        variants = ["block", "rechunk", "split", "dask-threads", "dask-distributed"]
        counts = sorted({r["blocks_per_core"] for r in mine if r["variant"] != "sequential"})
        table = {(r["variant"], r["blocks_per_core"]): r for r in mine}
        md.append(f"## {workload}\n")
        md.append(f"Sequential C++: {sequential * 1e3:.2f} ms (median).\n")
        md.append("| blocks per core | " + " | ".join(variants) +
                  " | split vs sequential | split vs Dask's best |")
        md.append("|" + "---|" * (len(variants) + 3))
        for count in counts:
            cells = []
            for v in variants:
                r = table.get((v, count))
                cells.append(f"{r['median'] * 1e3:.2f} ms (±{(max(r['seconds']) - min(r['seconds'])) * 5e2:.2f})"
                             if r else "-")
            split = table[("split", count)]["median"]
            dask = min(table[(v, count)]["median"] for v in variants if v.startswith("dask")
                       and (v, count) in table)
            md.append(f"| {count} | " + " | ".join(cells) +
                      f" | {sequential / split:.2f}x | {dask / split:.2f}x |")
        splits = [table[("split", c)]["median"] for c in counts]
        md.append(f"\nSplit across block counts: slowest / fastest = "
                  f"{max(splits) / min(splits):.2f} (goal <= 1.25).\n")
        for v in variants:
            xs = [c for c in counts if (v, c) in table]
            axis.plot(xs, [table[(v, c)]["median"] * 1e3 for c in xs], marker="o", label=v)
        axis.axhline(sequential * 1e3, color="gray", linestyle="--", label="sequential C++")
        axis.set_xscale("log", base=2)
        axis.set_yscale("log")
        axis.set_xlabel("blocks per core")
        axis.set_ylabel("time (ms, median)")
        axis.set_title(workload)
        axis.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(out + ".png", dpi=110)
    md.append(f"![time against blocks per core]({out.split('/')[-1]}.png)\n")
    open(out + ".md", "w").write("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
