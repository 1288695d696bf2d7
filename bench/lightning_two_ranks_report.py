#!/usr/bin/env python3
"""Writes bench/results/lightning-two-ranks.{json,md} from bench/run_lightning_two_ranks.sh's raw
lines ("BENCH|BUILD|P|SECONDS"): per benchmark and build, the timed part on two processes and on
one process on the same problem, the speed-up of two over one, and, with a compared build, the
ratio of the two builds' two-process times."""
import argparse
import datetime
import json
import platform
import statistics


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "runs": values}


def main():
    parser = argparse.ArgumentParser()
    for flag in ("--raw", "--prefix", "--command", "--load-before", "--load-after"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--compared", default="the compared build",
                        help="what the compared runs are")
    args = parser.parse_args()
    times = {}
    for line in open(args.raw):
        bench, build, p, seconds = line.rstrip("\n").split("|")
        times.setdefault((bench, build, int(p)), []).append(float(seconds))
    benches = sorted({b for b, _, _ in times})
    builds = [b for b in ("this", "compared") if any(k[1] == b for k in times)]
    report = {}
    for bench in benches:
        report[bench] = {}
        for build in builds:
            two, one = summary(times[(bench, build, 2)]), summary(times[(bench, build, 1)])
            report[bench][build] = {"two_processes_s": two, "one_process_s": one,
                                    "speedup": one["median"] / two["median"]}
        if "compared" in builds:
            report[bench]["compared_over_this"] = (
                report[bench]["compared"]["two_processes_s"]["median"]
                / report[bench]["this"]["two_processes_s"]["median"])

    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    cpus = open("/proc/cpuinfo").read().count("processor")
    json.dump({"date": date, "machine": f"{platform.node()}, {cpus} CPUs", "command": args.command,
               "load_before": args.load_before, "load_after": args.load_after,
               "benchmarks": report}, open(args.prefix + ".json", "w"), indent=1)

    def cell(s):
        return f"{s['median']:.4f} ({s['min']:.4f} – {s['max']:.4f})"

    lines = ["# Lightning benchmarks on two processes against one", "",
             f"Date: {date} (host `{platform.node()}`, {cpus} logical CPUs; load average before "
             f"{args.load_before}, after {args.load_after})", "", "```", args.command, "```", "",
             "Each benchmark at its weak-scaling size of p = 2 (bench/run_lightning_weak_scaling.sh)"
             " under `strata launch -n 2`, one single-threaded CPU device per process, and the "
             "same problem in one process; timed part in seconds, median (min – max) of the "
             "repetitions, the builds alternated. *Speed-up*: one process / two processes (2 at "
             "best; on 2 cores each process also has its network, plan and copy threads)."]
    if "compared" in builds:
        lines += [f"*Compared*: {args.compared}. *Compared / this*: the compared two-process "
                  "time over this build's (above 1: this build is faster)."]
    lines += [""]
    header = "| benchmark |"
    rule = "| --- |"
    for build in builds:
        header += f" {build}: 2 processes s | {build}: 1 process s | {build}: speed-up |"
        rule += " ---: | ---: | ---: |"
    if "compared" in builds:
        header += " compared / this |"
        rule += " ---: |"
    lines += [header, rule]
    for bench in benches:
        row = f"| {bench} |"
        for build in builds:
            r = report[bench][build]
            row += (f" {cell(r['two_processes_s'])} | {cell(r['one_process_s'])} "
                    f"| {r['speedup']:.2f} |")
        if "compared" in builds:
            row += f" {report[bench]['compared_over_this']:.2f} |"
        lines.append(row)
    open(args.prefix + ".md", "w").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
