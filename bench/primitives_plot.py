#!/usr/bin/env python3
"""Draws PREFIX.png from bench_primitives' PREFIX.json: sorting throughput (million keys per
second, median and min-max) against the number of keys for the CPU device's radix sort, std::sort,
oneTBB's parallel_sort and the OpenCL device's radix sort."""
import json, statistics, sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

prefix = sys.argv[1]
raw = json.load(open(prefix + ".json"))
fig, ax = plt.subplots(figsize=(7.5, 4.6))
labels = []
for s in raw["series"]:
    if s["what"] == "sort" and s["label"] not in labels:
        labels.append(s["label"])
for label in labels:
    points = sorted((s["n"], s["seconds"]) for s in raw["series"]
                    if s["what"] == "sort" and s["label"] == label)
    ns = [n for n, _ in points]
    rate = [n / statistics.median(t) / 1e6 for n, t in points]
    low = [r - n / max(t) / 1e6 for r, (n, t) in zip(rate, points)]
    high = [n / min(t) / 1e6 - r for r, (n, t) in zip(rate, points)]
    ax.errorbar(ns, rate, yerr=[low, high], marker="o", capsize=3, label=label)
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("32-bit keys")
ax.set_ylabel("million keys per second (median, min – max)")
ax.set_title(f"Sorting random u32 keys: {raw['cpu']}, {raw['threads']} threads"
             f"\nOpenCL: {raw['opencl_device']}; {raw['host']}, {raw['date']}", fontsize=9)
ax.legend(fontsize=8)
ax.grid(True, which="both", alpha=0.3)
fig.tight_layout()
fig.savefig(prefix + ".png", dpi=110)
print(f"wrote {prefix}.png")
