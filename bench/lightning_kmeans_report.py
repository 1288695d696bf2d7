#!/usr/bin/env python3
"""Writes bench/results/lightning-kmeans.{json,md,png} from bench/run_lightning_kmeans.sh's raw
lines ("SWEEP N CHUNK time T s (...), throughput X Mpoints/s ...")."""
import argparse
import datetime
import json
import math
import platform
import re
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def parse(path):
    """The throughputs of each point, and the points of runs cut at the time limit."""
    points, cut = {}, []
    for line in open(path):
        sweep, n, chunk, rest = line.split(" ", 3)
        found = re.search(r"throughput ([0-9.]+) Mpoints/s", rest)
        if found:
            points.setdefault((sweep, int(n), int(chunk)), []).append(float(found.group(1)))
        else:
            cut.append(f"{sweep} sweep, {int(n):,} points in chunks of {int(chunk):,} ({rest.strip()})")
    return points, cut


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "runs": values}


def flat_range(chunk, share):
    """The widest run of consecutive chunk sizes whose medians keep `share` of the sweep's best
    median, as a sentence."""
    peak = max((r["mpoints_per_s"]["median"] for r in chunk), default=None)
    runs, run = [], []
    for r in sorted(chunk, key=lambda r: r["chunk_bytes"]):
        if peak and r["mpoints_per_s"]["median"] >= share * peak:
            run.append(r)
        elif run:
            runs.append(run)
            run = []
    if run:
        runs.append(run)
    best = max(runs, key=lambda run: run[-1]["chunk_bytes"] / run[0]["chunk_bytes"], default=None)
    if not best:
        return f"no chunk size keeps {100 * share:.0f} % of the best chunk size's throughput."

    def size(b):
        return f"{b / 2**20:g} MiB" if b >= 2**20 else f"{b / 2**10:g} KiB"
    lo, hi = best[0]["chunk_bytes"], best[-1]["chunk_bytes"]
    return (f"≥ {100 * share:.0f} % of the best chunk size's median ({peak:.2f} Mpoints/s) from "
            f"{size(lo)} to {size(hi)} chunks: {math.log10(hi / lo):.1f} orders of magnitude.")


def main():
    parser = argparse.ArgumentParser()
    for flag in ("--raw", "--prefix", "--command", "--capacity", "--devices", "--load-before",
                 "--load-after"):
        parser.add_argument(flag, required=True)
    args = parser.parse_args()
    capacity = int(args.capacity)
    points, cut = parse(args.raw)
    rows = []
    for (sweep, n, chunk), values in sorted(points.items()):
        rows.append({"sweep": sweep, "n": n, "chunk": chunk, "bytes": n * 16,
                     "times_capacity": n * 16 / capacity,
                     "chunk_bytes": chunk * 16, "mpoints_per_s": summary(values)})
    size = [r for r in rows if r["sweep"] == "size"]
    chunk = [r for r in rows if r["sweep"] == "chunk"]
    unbatched = {r["chunk"]: r for r in rows if r["sweep"] == "unbatched"}
    for r in chunk:
        alone = unbatched.get(r["chunk"])
        r["unbatched_mpoints_per_s"] = alone["mpoints_per_s"] if alone else None
    inside = [r["mpoints_per_s"]["median"] for r in size if r["times_capacity"] <= 1.0]
    reference = max(inside) if inside else None
    for r in rows:
        r["of_in_capacity"] = r["mpoints_per_s"]["median"] / reference if reference else None
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    machine = f"{platform.node()}, {platform.machine()}, {open('/proc/cpuinfo').read().count('processor')} CPUs"
    result = {"date": date, "machine": machine, "command": args.command, "capacity": capacity,
              "devices": args.devices, "load_before": args.load_before,
              "load_after": args.load_after, "points": rows, "cut": cut,
              "in_capacity_mpoints_per_s": reference}
    json.dump(result, open(args.prefix + ".json", "w"), indent=1)

    def fmt(r):
        m = r["mpoints_per_s"]
        share = f"{100 * r['of_in_capacity']:.0f} %" if r["of_in_capacity"] else "-"
        return (f"| {r['n']:,} | {r['times_capacity']:.2f}x | {r['chunk']:,} ({r['chunk_bytes'] / 2**20:.2f} MiB) "
                f"| {m['median']:.2f} ({m['min']:.2f} – {m['max']:.2f}) | {share} |")
    header = ("| points | of capacity | chunk (points) | Mpoints/s, median (min – max) | of the "
              "best in-capacity |\n| ---: | ---: | ---: | --- | ---: |")
    with open(args.prefix + ".md", "w") as out:
        out.write("# K-Means on distributed arrays across the device's capacity\n\n")
        out.write(f"Date: {date}; machine: {machine}; devices: `{args.devices}` with "
                  f"`STRATA_DEVICE_CAPACITY` = {capacity / 2**20:.0f} MiB (a capacity-limited "
                  f"device: beyond it chunks move to the host, as beyond a GPU's memory).\n\n")
        out.write(f"Load average before: {args.load_before}; after: {args.load_after}.\n\n")
        out.write(f"Command: `{args.command}` (each point: `lightning_kmeans --n N --chunk C "
                  f"--devices {args.devices} --no-check`, k = 40, 5 iterations after an untimed "
                  f"one; the throughput is points x iterations per second).\n\n")
        out.write("## Throughput against problem size (the paper's Fig. 12)\n\n")
        out.write(header + "\n" + "\n".join(fmt(r) for r in size) + "\n\n")
        out.write("Goal (issue 17): ≥ 95 % of the in-capacity throughput at 4x capacity for the "
                  "compute-bound benchmarks (the paper: Correlator −8.8 % at 2x).\n\n")
        out.write("## Throughput against chunk size at 1.25x capacity (the paper's Fig. 10)\n\n")
        out.write("A launch's superblocks on one device run as kernel tasks of up to a "
                  "sixteenth of the device's capacity in chunks (`array_batch_bytes`, default "
                  "64 MiB); the last columns run the same chunk sizes with a task per superblock "
                  "(`STRATA_ARRAY_BATCH_BYTES=0`), in the same repetitions.\n\n")
        out.write(header[:header.index("\n")] + " task per superblock: Mpoints/s | batched / "
                  "task per superblock |\n" + header[header.index("\n") + 1:] + " --- | ---: |\n")
        for r in chunk:
            alone = r["unbatched_mpoints_per_s"]
            extra = (f" {alone['median']:.2f} ({alone['min']:.2f} – {alone['max']:.2f}) | "
                     f"{r['mpoints_per_s']['median'] / alone['median']:.2f} |" if alone
                     else " - | - |")
            out.write(fmt(r) + extra + "\n")
        out.write("\n")
        for share in (0.8, 0.9):
            out.write(f"- {flat_range(chunk, share)}\n")
        if cut:
            out.write("\nRuns cut at the time limit (not in the medians): " + "; ".join(cut) + ".\n")
        out.write("\nGoal (issue 17): flat over at least two orders of magnitude of chunk size "
                  "(the paper: about 50 MB to 5 GB on a 16 GB GPU). The upper end is set by the "
                  "device's capacity (a chunk beyond about a quarter of it leaves little room to "
                  "overlap copies), the lower end by the runtime's cost per superblock against "
                  "its kernels' time, in bytes: a larger device widens the range.\n")
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    for axis, data, key, label in ((left, size, "times_capacity", "problem size / device capacity"),
                                   (right, chunk, "chunk_bytes", "chunk size (bytes)")):
        xs = [r[key] for r in data]
        ys = [r["mpoints_per_s"]["median"] for r in data]
        lo = [r["mpoints_per_s"]["median"] - r["mpoints_per_s"]["min"] for r in data]
        hi = [r["mpoints_per_s"]["max"] - r["mpoints_per_s"]["median"] for r in data]
        axis.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3,
                      label="batched (array_batch_bytes)" if key == "chunk_bytes" else None)
        if key == "chunk_bytes":
            alone = [r for r in data if r["unbatched_mpoints_per_s"]]
            axis.plot([r[key] for r in alone],
                      [r["unbatched_mpoints_per_s"]["median"] for r in alone], marker="s",
                      linestyle="--", label="a task per superblock")
            axis.legend()
        axis.set_xlabel(label)
        axis.set_ylabel("Mpoints/s")
        axis.set_ylim(bottom=0)
        if key == "chunk_bytes":
            axis.set_xscale("log")
        else:
            axis.axvline(1.0, color="grey", linestyle="--", label="device capacity")
            axis.legend()
    left.set_title("K-Means: throughput across the capacity")
    right.set_title("K-Means at 1.25x capacity: chunk size")
    figure.tight_layout()
    figure.savefig(args.prefix + ".png", dpi=110)


if __name__ == "__main__":
    main()
