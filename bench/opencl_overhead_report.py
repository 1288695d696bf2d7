#!/usr/bin/env python3
"""Writes bench/results/opencl-overhead.md from bench_opencl_overhead's JSON (standard library only)
and adds the computed summary to that JSON under "summary"."""
import argparse
import json
import os
import pathlib
import platform
import statistics
import subprocess

LAUNCHES = {"launch/empty": "empty kernel", "launch/1ms": "~1 ms kernel",
            "launch/burst_of_16_empty": "16 empty kernels back to back, one wait (µs per 16)"}
COPIES = {"copy/to_device": "host → device", "copy/to_host": "device → host"}


def machine():
    cpuinfo = pathlib.Path("/proc/cpuinfo").read_text()
    field = lambda name: next((line.split(":", 1)[1].strip() for line in cpuinfo.splitlines()
                               if line.startswith(name)), "?")
    virtual = " (virtual machine: hypervisor flag set)" if " hypervisor" in field("flags") else ""
    os_name = "?"
    if pathlib.Path("/etc/os-release").exists():
        for line in pathlib.Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                os_name = line.split("=", 1)[1].strip('"')
    return [f"CPU: {field('model name')}{virtual}", f"logical CPUs: {os.cpu_count()}",
            f"kernel: Linux {platform.release()} ({os_name})"]


def compiler_version(compiler):
    try:
        out = subprocess.run([compiler, "--version"], capture_output=True, text=True, check=True)
        return out.stdout.splitlines()[0]
    except (OSError, subprocess.CalledProcessError, IndexError):
        return compiler


def spread(values):
    """median, min, max, relative stddev (%) of a list."""
    median = statistics.median(values)
    cv = 100 * statistics.stdev(values) / abs(median) if len(values) > 1 and median else 0.0
    return median, min(values), max(values), cv


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    for flag in ("json", "out", "command", "load-before", "load-after", "wall", "other-cpu",
                 "compiler", "build-type"):
        parser.add_argument("--" + flag, required=True)
    args = parser.parse_args()
    data = json.loads(pathlib.Path(args.json).read_text())
    context = data["context"]
    # The repetitions of each benchmark (each one runs raw and Strata calls interleaved).
    reps = {}
    for entry in data["benchmarks"]:
        if entry.get("run_type") == "iteration":
            name = entry["run_name"].removesuffix("/real_time")
            reps.setdefault(name, []).append(entry)

    summary = {"launches": {}, "copies": {}, "goals": {}}
    out = ["# OpenCL backend overhead: Strata vs the raw OpenCL API", "",
           f"Date: {context['date']} (host `{context['host_name']}`)", "", "## Machine and device", ""]
    wall, other = float(args.wall), float(args.other_cpu)
    out += [f"- {line}" for line in machine()]
    out += [f"- OpenCL device: {context.get('opencl_device', '?')}",
            f"- load average (1, 5, 15 min) before the run: {args.load_before}; after: {args.load_after}",
            f"- during the {wall:.0f} s run, other processes used {max(0.0, other):.1f} CPU-seconds"
            + (" — **the run was disturbed; rerun on a quiet machine**" if other > 0.05 * wall else ""),
            "", "## Software and command", "",
            f"- compiler: {compiler_version(args.compiler)}, CMake build type {args.build_type}",
            "", "```", args.command, "```", "",
            "Both sides run on the same OpenCL device in one process: the raw side has its own "
            "context and in-order queues (no profiling, as Strata's), the same program source, and "
            "per launch calls `clSetKernelArg` twice, `clEnqueueNDRangeKernel` with an event and "
            "`clWaitForEvents`; per copy a non-blocking `clEnqueueWrite/ReadBuffer` and "
            "`clWaitForEvents`. Strata's side calls `Queue::launch(...).wait()` (argument checks, "
            "the kernel's argument lock, enqueue, `clFlush`, its event object) and "
            "`copy_to_device/copy_to_host(...).wait()`. The burst enqueues 16 launches before one "
            "wait: the raw side flushes the queue once (the wait's implicit flush), Strata after "
            "every command, as a task of several commands (an FFT, a pipeline stage) runs. "
            "Each benchmark iteration runs one raw and "
            "one Strata call back to back, alternating which goes first, so both see the same "
            "machine state; the 10 repetitions of all benchmarks run in random order. Spread is "
            "over the 10 repetitions; ratios are computed per repetition (same run, same "
            "iterations) and then their median taken.",
            f"Launches use {context.get('launch_geometry', '?')}; the ~1 ms kernel loops "
            f"{context.get('spin_iterations', '?')} times per work-item (calibrated at start so a "
            "raw launch takes about 1 ms).",
            "", "## Launch + wait (µs per launch)", "",
            "| kernel | raw median (min – max) | Strata median (min – max) | added by Strata: median "
            "(min – max) | Strata ÷ raw: median (min – max) |",
            "| --- | ---: | ---: | ---: | ---: |"]
    for name, label in LAUNCHES.items():
        if name not in reps:
            continue
        rows = reps[name]
        raw = spread([r["raw_us"] for r in rows])
        strata = spread([r["strata_us"] for r in rows])
        added = spread([r["strata_us"] - r["raw_us"] for r in rows])
        ratio = spread([r["strata_us"] / r["raw_us"] for r in rows])
        summary["launches"][name] = {"raw_us": raw[0], "strata_us": strata[0], "added_us": added[0],
                                     "added_us_min": added[1], "added_us_max": added[2],
                                     "ratio": ratio[0], "ratio_min": ratio[1], "ratio_max": ratio[2],
                                     "raw_cv_percent": raw[3], "strata_cv_percent": strata[3]}
        out.append(f"| {label} | {raw[0]:,.1f} ({raw[1]:,.1f} – {raw[2]:,.1f}) | {strata[0]:,.1f} "
                   f"({strata[1]:,.1f} – {strata[2]:,.1f}) | {added[0]:+,.2f} ({added[1]:+,.2f} – "
                   f"{added[2]:+,.2f}) | {ratio[0]:.4f} ({ratio[1]:.4f} – {ratio[2]:.4f}) |")

    out += ["", "## Copy + wait (GB/s, 1 GB = 10⁹ B)", "",
            "| direction | size | raw median (min – max) | Strata median (min – max) | Strata ÷ raw: "
            "median (min – max) |", "| --- | ---: | ---: | ---: | ---: |"]
    copy_ratios = []
    for name, label in COPIES.items():
        for run_name in sorted((r for r in reps if r.startswith(name + "/")),
                               key=lambda r: int(r.split("/")[-1])):
            rows = reps[run_name]
            size = int(run_name.split("/")[-1])
            raw = spread([r["raw_GBps"] for r in rows])
            strata = spread([r["strata_GBps"] for r in rows])
            ratio = spread([r["strata_GBps"] / r["raw_GBps"] for r in rows])
            copy_ratios.append((label, size, ratio[0]))
            summary["copies"][run_name] = {"bytes": size, "raw_GBps": raw[0],
                                           "strata_GBps": strata[0], "ratio": ratio[0],
                                           "ratio_min": ratio[1], "ratio_max": ratio[2]}
            out.append(f"| {label} | {size >> 20} MiB | {raw[0]:.2f} ({raw[1]:.2f} – {raw[2]:.2f}) | "
                       f"{strata[0]:.2f} ({strata[1]:.2f} – {strata[2]:.2f}) | {ratio[0]:.3f} "
                       f"({ratio[1]:.3f} – {ratio[2]:.3f}) |")

    out += ["", "## Goals", ""]
    launches = summary["launches"]
    if "launch/1ms" in launches:
        percent = 100 * (launches["launch/1ms"]["ratio"] - 1)
        met = percent <= 3
        summary["goals"]["1ms_kernel_overhead_at_most_3_percent"] = {"value_percent": percent, "met": met}
        out.append(f"- At most 3 % on the ~1 ms kernel: {percent:+.2f} % (median of per-repetition "
                   f"ratios): **{'met' if met else 'not met'}**.")
    if "launch/empty" in launches:
        added = launches["launch/empty"]["added_us"]
        met = added <= 5
        summary["goals"]["added_per_launch_at_most_5_us"] = {"value_us": added, "met": met}
        out.append(f"- At most 5 µs added per launch (empty kernel): {added:+.2f} µs: "
                   f"**{'met' if met else 'not met'}**.")
    if copy_ratios:
        worst = min(copy_ratios, key=lambda c: c[2])
        met = worst[2] >= 0.95
        summary["goals"]["copy_throughput_at_least_95_percent"] = {"worst_ratio": worst[2], "met": met}
        out.append(f"- Copy throughput at least 95 % of raw: the lowest median ratio is "
                   f"{100 * worst[2]:.1f} % ({worst[0]}, {worst[1] >> 20} MiB): "
                   f"**{'met' if met else 'not met'}**.")
    pathlib.Path(args.out).write_text("\n".join(out) + "\n")
    data["summary"] = summary
    pathlib.Path(args.json).write_text(json.dumps(data, indent=2) + "\n")


if __name__ == "__main__":
    main()
