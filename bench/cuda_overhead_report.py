#!/usr/bin/env python3
"""Writes bench/results/cuda-overhead.md from bench_cuda_overhead's JSON (standard library only)."""
import argparse
import datetime
import json
import pathlib

# case -> (what it is, metric: "time" per iteration or "rate" in bytes/s)
CASES = {
    "launch_empty_sync": ("empty kernel, launch and wait for it, one at a time", "time"),
    "launch_empty_batch": ("1,000 empty kernels launched back to back, then one wait", "time"),
    "launch_1ms": ("~1 ms spinning kernel, launch and wait", "time"),
    "copy_h2d_64MiB": ("64 MiB host-to-device copy from pinned memory, and wait", "rate"),
    "copy_d2h_64MiB": ("64 MiB device-to-host copy to pinned memory, and wait", "rate"),
}


def load(path):
    """{(case, system): {aggregate: entry}} and the context, from Google Benchmark JSON."""
    data = json.loads(pathlib.Path(path).read_text())
    runs = {}
    for entry in data["benchmarks"]:
        case, system = entry["run_name"].split("/")[:2]
        runs.setdefault((case, system), {})[entry["aggregate_name"]] = entry
    return runs, data["context"]


def value(entry, metric):
    return entry["real_time"] if metric == "time" else entry["bytes_per_second"] / 1e9


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--command", required=True)
    args = parser.parse_args()
    runs, context = load(args.json)
    lines = [
        "# CUDA backend overhead: Strata vs the raw CUDA runtime",
        "",
        f"- device: {context.get('cuda_device', '?')}; {context.get('cuda_platform', '')}",
        f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}; "
        f"host: {context.get('host_name', '?')}, {context.get('num_cpus', '?')} CPUs",
        f"- command: `{args.command}`",
        f"- 10 repetitions in random interleaving; spin kernel {context.get('spin_cycles')} cycles",
        "",
        "| case | raw median | Strata median | raw cv | Strata cv | Strata / raw |",
        "|---|---|---|---|---|---|",
    ]
    notes = []
    for case, (what, metric) in CASES.items():
        raw, strata = runs.get((case, "raw")), runs.get((case, "strata"))
        if not raw or not strata:
            continue
        unit = "µs" if metric == "time" else "GB/s"
        r, s = value(raw["median"], metric), value(strata["median"], metric)
        ratio = s / r
        lines.append(f"| {what} | {r:.2f} {unit} | {s:.2f} {unit} | "
                     f"{100 * raw['cv']['real_time']:.1f}% | "
                     f"{100 * strata['cv']['real_time']:.1f}% | {ratio:.3f} |")
        if case == "launch_empty_sync":
            notes.append(f"- added per launch, launch and wait: {s - r:.2f} µs (goal ≤ 5 µs)")
        elif case == "launch_empty_batch":
            notes.append(f"- added per launch, back to back: {(s - r) / 1000:.3f} µs (goal ≤ 5 µs)")
        elif case == "launch_1ms":
            notes.append(f"- overhead on the ~1 ms kernel: {100 * (ratio - 1):.2f}% (goal ≤ 3%)")
        else:
            notes.append(f"- {case}: Strata reaches {100 * ratio:.1f}% of the raw throughput "
                         f"(goal ≥ 95%)")
    lines += ["", "Spread: cv is the coefficient of variation over the repetitions.", ""] + notes
    pathlib.Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
