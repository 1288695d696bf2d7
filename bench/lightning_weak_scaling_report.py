#!/usr/bin/env python3
"""Writes bench/results/lightning-weak-scaling.{json,md,png} from the raw lines of
bench/run_lightning_weak_scaling.sh ("BENCH|P|N|CHUNK|time ...|plan (timed part): ...|check: ...")
and predicts weak-scaling efficiency beyond this machine.

The prediction is driven by the plans Strata made in the runs (their counts at each p: planned
operations, transfers and bytes between ranks) and by measured costs:
  T(p) = max(T_kernel + bytes(p) / p / B + transfers(p) / p * t_transfer,  ops(p) * t_plan)
where T_kernel is the run time at p = 1 (weak scaling: every process has the same work), B the
bandwidth between ranks, t_transfer the fixed cost of one transfer (cluster-transfer benchmark's
4 KiB bounce step), t_plan the driver's planning cost per operation (plan-platform benchmark),
paid on rank 0 alone. Counts beyond the largest measured p are extrapolated by a least-squares fit
of a * p + b * p^2 to the measured p >= 2. A second prediction divides T_kernel by a device
speed-up (a GPU instead of one CPU core) to show where communication takes over."""
import argparse
import datetime
import json
import platform
import re
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COUNT_NAMES = ["launches", "superblocks", "assembled regions", "box copies", "operations",
               "transfers", "bytes between ranks", "plan messages"]
PLAN_SECONDS_PER_OPERATION = 0.92e-6  # bench/results/plan-platform.md: planning per operation
INFINIBAND_FDR = 7e9                  # the lightning paper's network, bytes/s
GPU_SPEEDUP = 50.0                    # assumed device speed-up over one core of this machine
PREDICT = [1, 2, 4, 8, 16, 32, 64]


def parse(path):
    """Runs by (benchmark, p); p = "1@2" is one process on the p = 2 problem."""
    runs = {}
    for line in open(path):
        bench, p, n, chunk, time_line, plan_line, check = line.rstrip("\n").split("|")
        p = p if p == "1@2" else int(p)
        seconds = float(re.search(r"time ([0-9.]+) s", time_line).group(1))
        counts = {}
        for name in COUNT_NAMES:
            counts[name] = int(re.search(r"(\d+) " + name, plan_line).group(1))
        key = (bench, p)
        entry = runs.setdefault(key, {"n": int(n), "chunk": int(chunk), "seconds": [],
                                      "counts": counts, "checks": []})
        entry["seconds"].append(seconds)
        entry["checks"].append(check.strip())
    return runs


def fit_counts(points):
    """Least squares of y = a p + b p^2 over (p, y) with p >= 2; returns a function of p."""
    data = [(p, y) for p, y in points if p >= 2]
    if len(data) < 2:
        return lambda p: dict(points).get(p, 0)
    s11 = sum(p * p for p, _ in data)
    s12 = sum(p ** 3 for p, _ in data)
    s22 = sum(p ** 4 for p, _ in data)
    t1 = sum(p * y for p, y in data)
    t2 = sum(p * p * y for p, y in data)
    det = s11 * s22 - s12 * s12
    a = (t1 * s22 - t2 * s12) / det
    b = (s11 * t2 - s12 * t1) / det
    measured = dict(points)
    return lambda p: measured[p] if p in measured else max(0.0, a * p + b * p * p)


def predict(kernel_seconds, count, p, bandwidth, transfer_seconds):
    ops, transfers, moved = (count["operations"](p), count["transfers"](p),
                             count["bytes between ranks"](p))
    per_rank = kernel_seconds + moved / p / bandwidth + transfers / p * transfer_seconds
    return max(per_rank, ops * PLAN_SECONDS_PER_OPERATION)


def main():
    parser = argparse.ArgumentParser()
    for flag in ("--raw", "--prefix", "--command", "--load-before", "--load-after",
                 "--transfer-results"):
        parser.add_argument(flag, required=True)
    args = parser.parse_args()
    runs = parse(args.raw)
    transfer = json.load(open(args.transfer_results))["results"]
    local_bandwidth = transfer["strata_stream_64MiB"]["median"]
    transfer_seconds = transfer["strata_step_4KiB"]["median"]
    benches = sorted({b for b, _ in runs})
    report = {}
    for b in benches:
        ps = sorted(p for bb, p in runs if bb == b and p != "1@2")
        base = statistics.median(runs[(b, 1)]["seconds"])
        count = {name: fit_counts([(p, runs[(b, p)]["counts"][name]) for p in ps])
                 for name in COUNT_NAMES}
        rows = []
        for p in sorted(set(ps) | set(PREDICT)):
            row = {"p": p}
            if p in ps:
                r = runs[(b, p)]
                row.update({"n": r["n"], "measured_seconds": {
                    "median": statistics.median(r["seconds"]), "min": min(r["seconds"]),
                    "max": max(r["seconds"]), "runs": r["seconds"]},
                    "counts": r["counts"], "checks": r["checks"]})
            else:
                row["counts_extrapolated"] = {k: count[k](p) for k in COUNT_NAMES}
            local = predict(base, count, p, local_bandwidth, transfer_seconds)
            fdr = predict(base, count, p, INFINIBAND_FDR, transfer_seconds)
            gpu_base = predict(base / GPU_SPEEDUP, count, 1, INFINIBAND_FDR, transfer_seconds)
            gpu = predict(base / GPU_SPEEDUP, count, p, INFINIBAND_FDR, transfer_seconds)
            row["predicted_seconds_local"] = local
            row["efficiency_local"] = base / local
            row["efficiency_fdr"] = base / fdr
            row["efficiency_gpu_fdr"] = gpu_base / gpu
            rows.append(row)
        report[b] = {"kernel_seconds_p1": base, "rows": rows}
        alone = runs.get((b, "1@2"))
        if alone:
            report[b]["one_process_at_p2_size"] = {
                "n": alone["n"], "median": statistics.median(alone["seconds"]),
                "min": min(alone["seconds"]), "max": max(alone["seconds"]),
                "runs": alone["seconds"], "checks": alone["checks"]}

    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    cpus = open("/proc/cpuinfo").read().count("processor")
    machine = f"{platform.node()}, {platform.machine()}, {cpus} CPUs"
    result = {"date": date, "machine": machine, "command": args.command,
              "load_before": args.load_before, "load_after": args.load_after,
              "model": {"plan_seconds_per_operation": PLAN_SECONDS_PER_OPERATION,
                        "local_bandwidth": local_bandwidth, "transfer_seconds": transfer_seconds,
                        "infiniband_fdr": INFINIBAND_FDR, "gpu_speedup": GPU_SPEEDUP},
              "benchmarks": report}
    json.dump(result, open(args.prefix + ".json", "w"), indent=1)

    lines = [
        "# Weak scaling of the lightning benchmarks: measured plans, predicted efficiency", "",
        f"Date: {date} (host `{platform.node()}`, {cpus} logical CPUs; load average before "
        f"{args.load_before}, after {args.load_after})", "",
        "## Command", "", "```", args.command, "```", "",
        "## What is measured and what is predicted", "",
        "Each benchmark runs under `strata launch -n p` with one CPU device of one thread per "
        "process (`STRATA_CPU_THREADS=1`) at a "
        "size whose work grows with p (linear benchmarks n x p; HotSpot, SpMV and N-Body, "
        "quadratic in their side, sqrt(p); GEMM cbrt(p)), chunk sizes fixed. Every run's check "
        "against the sequential reference is recorded. **This machine has 2 cores: times at "
        "p > 2 are oversubscribed and say nothing about scaling**; the plan-level counts "
        "(operations, transfers and bytes between ranks that Strata planned for the timed part) "
        "are exact at every p and show how the algorithm scales.", "",
        "Prediction (bench/lightning_weak_scaling_report.py): T(p) = max(T_kernel + bytes(p) / p "
        "/ B + transfers(p) / p x t_transfer, operations(p) x t_plan), T_kernel the measured "
        f"time at p = 1, t_transfer = {transfer_seconds * 1e6:.1f} µs (cluster-transfer 4 KiB "
        f"bounce step), t_plan = {PLAN_SECONDS_PER_OPERATION * 1e6:.2f} µs per operation on the "
        f"driver (plan-platform). Columns: *local*, B = {local_bandwidth / 1e9:.1f} GB/s (this "
        "machine's MPI, cluster-transfer stream); *FDR*, B = 7 GB/s (the paper's InfiniBand "
        f"FDR); *GPU+FDR*, T_kernel / {GPU_SPEEDUP:g} (a device {GPU_SPEEDUP:g}x one core here, "
        "no GPU was lent to measure it) over FDR. Counts beyond the largest measured p are "
        "extrapolated (a p + b p^2 fit). Efficiency = T(1) / T(p). At p = 2 one process also "
        "runs the p = 2 problem alone: a kernel may be slower per unit of work at the larger "
        "size (caches, row strides) in one process as well, which is not a cost of "
        "distributing it.", ""]
    for b in benches:
        lines += [f"## {b}", "",
                  "| p | n | measured s (min – max) | operations | transfers | MB between ranks "
                  "| predicted s (local) | efficiency local | FDR | GPU+FDR |",
                  "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for row in report[b]["rows"]:
            if "measured_seconds" in row:
                m = row["measured_seconds"]
                measured = f"{m['median']:.3f} ({m['min']:.3f} – {m['max']:.3f})"
                if row["p"] > 2:
                    measured += " †"
                c = row["counts"]
                n = str(row["n"])
            else:
                measured, n = "—", "—"
                c = row["counts_extrapolated"]
            lines.append(
                f"| {row['p']} | {n} | {measured} | {c['operations']:.0f} | {c['transfers']:.0f} "
                f"| {c['bytes between ranks'] / 1e6:.2f} | {row['predicted_seconds_local']:.3f} "
                f"| {100 * row['efficiency_local']:.0f} % | {100 * row['efficiency_fdr']:.0f} % "
                f"| {100 * row['efficiency_gpu_fdr']:.0f} % |")
        checks = sorted({c for row in report[b]["rows"] for c in row.get("checks", [])})
        lines += ["", f"Checks: {', '.join(checks)}. † oversubscribed (p > 2 processes on 2 "
                  "cores); counts exact, time not meaningful.", ""]
        two = [r for r in report[b]["rows"] if r["p"] == 2 and "measured_seconds" in r]
        if two:
            r = two[0]
            t2 = r["measured_seconds"]["median"]
            lines += [f"At p = 2 (2 cores, meaningful): measured {t2:.3f}"
                      f" s against predicted {r['predicted_seconds_local']:.3f} s; measured "
                      f"efficiency {100 * report[b]['kernel_seconds_p1'] / t2:.0f} %."]
            alone = report[b].get("one_process_at_p2_size")
            if alone:
                # Work grows as p: the p = 2 problem alone is twice the p = 1 work.
                size_effect = 2 * report[b]["kernel_seconds_p1"] / alone["median"]
                lines += [f"One process alone on the p = 2 problem (n = {alone['n']}): "
                          f"{alone['median']:.3f} s ({alone['min']:.3f} – {alone['max']:.3f}); "
                          f"two processes run it {alone['median'] / t2:.2f}x as fast (of 2x). "
                          f"The size alone keeps {100 * size_effect:.0f} % of the p = 1 "
                          "speed per unit of work, so the efficiency from distributing is "
                          f"{100 * alone['median'] / (2 * t2):.0f} %."]
            lines += [""]
    open(args.prefix + ".md", "w").write("\n".join(lines) + "\n")

    figure, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for b in benches:
        rows = report[b]["rows"]
        ps = [r["p"] for r in rows]
        axes[0].plot(ps, [r["efficiency_fdr"] for r in rows], marker="o", label=b)
        axes[1].plot(ps, [r["efficiency_gpu_fdr"] for r in rows], marker="o", label=b)
    for axis, title in zip(axes, ["this machine's kernels, 7 GB/s network",
                                  f"kernels {GPU_SPEEDUP:g}x faster (GPU-like), 7 GB/s"]):
        axis.set_xscale("log", base=2)
        axis.set_xlabel("processes (p), weak scaling")
        axis.set_title(title)
        axis.grid(True, alpha=0.3)
    axes[0].set_ylabel("predicted efficiency T(1) / T(p)")
    axes[0].set_ylim(0, 1.05)
    axes[1].legend(fontsize=8)
    figure.suptitle("Lightning benchmarks: weak scaling predicted from Strata's plans")
    figure.tight_layout()
    figure.savefig(args.prefix + ".png", dpi=110)


if __name__ == "__main__":
    main()
