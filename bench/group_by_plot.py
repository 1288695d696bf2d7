#!/usr/bin/env python3
"""Draws PREFIX.png from bench_group_by's PREFIX.json: records grouped per second (median, min-max)
by each way of counting and summing, for each number of distinct keys."""
import json, statistics, sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

prefix = sys.argv[1]
raw = json.load(open(prefix + ".json"))
labels, distincts = [], []
for s in raw["series"]:
    if s["label"] not in labels:
        labels.append(s["label"])
    if s["distinct"] not in distincts:
        distincts.append(s["distinct"])
fig, ax = plt.subplots(figsize=(8, 4.6))
width = 0.8 / len(labels)
for i, label in enumerate(labels):
    xs, rates, low, high = [], [], [], []
    for j, distinct in enumerate(distincts):
        for s in raw["series"]:
            if s["label"] == label and s["distinct"] == distinct:
                n, t = raw["records"], s["seconds"]
                rate = n / statistics.median(t) / 1e6
                xs.append(j + (i - (len(labels) - 1) / 2) * width)
                rates.append(rate)
                low.append(rate - n / max(t) / 1e6)
                high.append(n / min(t) / 1e6 - rate)
    ax.bar(xs, rates, width, yerr=[low, high], capsize=3, label=label)
ax.set_xticks(range(len(distincts)), [f"{d:,} distinct keys" for d in distincts])
ax.set_yscale("log")
ax.set_ylabel("million records per second (median, min – max)")
ax.set_title(f"Count and sum of {raw['records']:,} records by key: {raw['cpu']}, "
             f"{raw['threads']} threads\nOpenCL: {raw['opencl_device']}; {raw['host']}, "
             f"{raw['date']}", fontsize=9)
ax.legend(fontsize=8)
ax.grid(True, axis="y", which="both", alpha=0.3)
fig.tight_layout()
fig.savefig(prefix + ".png", dpi=110)
print(f"wrote {prefix}.png")
