#!/usr/bin/env python3
"""Draws PREFIX.png from bench_placement_devices' PREFIX.json: the makespan of every placement
(median, min-max), with the best split of the bag between the two devices as a line."""
import json, statistics, sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

prefix = sys.argv[1]
raw = json.load(open(prefix + ".json"))
labels = [c["label"] for c in raw["configs"]]
medians = [statistics.median(c["makespan_ms"]) for c in raw["configs"]]
low = [m - min(c["makespan_ms"]) for m, c in zip(medians, raw["configs"])]
high = [max(c["makespan_ms"]) - m for m, c in zip(medians, raw["configs"])]
fig, ax = plt.subplots(figsize=(9, 4.8))
colors = ["#999999" if "only" in l else "#4c72b0" if "PATS" in l else "#dd8452" for l in labels]
ax.barh(range(len(labels)), medians, xerr=[low, high], color=colors, capsize=3)
ax.axvline(raw["bound_ms"], color="black", linestyle="--", linewidth=1,
           label=f"best split, no overheads ({raw['bound_ms']:.0f} ms)")
ax.set_yticks(range(len(labels)), labels)
ax.invert_yaxis()
ax.set_xlabel("makespan, ms (median, min – max)")
ax.set_title(f"{raw['tasks']} kernel launches, speedups 1.1x–20x: CPU device + {raw['opencl_device']}"
             f"\n{raw['host']}, {raw['date']}, {raw['repetitions']} repetitions", fontsize=9)
ax.legend(loc="lower right", fontsize=8)
fig.tight_layout()
fig.savefig(prefix + ".png", dpi=110)
print(f"wrote {prefix}.png")
