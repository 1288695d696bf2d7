#!/usr/bin/env python3
"""Writes bench/results/event-poller.{json,md,png} from bench_event_poller's JSON."""
import argparse
import datetime
import json
import os
import platform
import re
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

METRICS = [
    ("chain_per_second", "chain operations/s", "{:,.0f}"),
    ("late_median_us", "chain seen late, median µs", "{:.1f}"),
    ("late_p99_us", "chain seen late, p99 µs", "{:.1f}"),
    ("questions_per_operation", "questions/operation", "{:.2f}"),
]
BURST_METRICS = {
    "late_median_us": "seen late, median µs",
    "late_max_us": "seen late, max µs",
    "late_last_us": "last one seen late µs",
    "questions_per_operation": "questions/operation",
}
POLICIES = {"lanes": "oldest of each lane", "every": "every watched item"}


def spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "values": values}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", required=True)
    parser.add_argument("--out", required=True, help="path prefix of the .json/.md/.png")
    parser.add_argument("--command", required=True)
    parser.add_argument("--load", nargs=2, default=["?", "?"])
    args = parser.parse_args()
    raw = json.load(open(args.json))
    windows = sorted({run["window"] for run in raw["runs"]})
    table = {}
    for window in windows:
        for policy in POLICIES:
            runs = [r for r in raw["runs"] if r["window"] == window and r["policy"] == policy]
            table[f"{window}/{policy}"] = {m: spread([r[m] for r in runs]) for m, _, _ in METRICS}
    # Per repetition, lanes against every (same repetition, same window): the ratio's spread.
    ratios = {}
    for window in windows:
        pairs = {}
        for run in raw["runs"]:
            if run["window"] == window:
                pairs.setdefault(run["repetition"], {})[run["policy"]] = run
        ratios[window] = spread([p["lanes"]["chain_per_second"] / p["every"]["chain_per_second"]
                                 for p in pairs.values() if len(p) == 2])
    cpuinfo = open("/proc/cpuinfo").read()
    model = re.search(r"^model name\s*:\s*(.*)$", cpuinfo, re.M)
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    machine = {"host": platform.node(), "cpu": model.group(1) if model else "?",
               "logical_cpus": os.cpu_count(), "load_before": args.load[0],
               "load_after": args.load[1]}
    bursts = raw.get("bursts", [])
    burst_table = {m: spread([b[m] for b in bursts]) for m in BURST_METRICS} if bursts else {}
    report = {"date": date, "command": args.command, "machine": machine,
              "setup": {k: raw[k] for k in ("chain", "period_ns", "query_ns", "burst",
                                           "burst_period_ns") if k in raw},
              "results": table, "lanes_over_every_chain_per_second": ratios,
              "burst": burst_table}
    json.dump(report, open(f"{args.out}.json", "w"), indent=2)

    device_rate = 1e9 / raw["period_ns"]
    lines = [
        "# CUDA event poller: asking each stream's oldest operation against asking every one", "",
        f"- date: {date}; host `{machine['host']}`: {machine['cpu']}, {machine['logical_cpus']} "
        f"logical CPUs; load average before {args.load[0]}, after {args.load[1]}",
        f"- command: `{args.command}`", "",
        "No GPU: `bench_event_poller` simulates two CUDA streams whose operations finish in "
        f"order, one every {raw['period_ns'] / 1000:g} µs once submitted, each watched by the "
        f"backend's `EventPoller` and asked at a cost of {raw['query_ns']} ns (a "
        "`cudaEventQuery`). The *queue* stream keeps *window* operations in flight (a finished "
        "one submits the next from its completion): the thousands of small chunks' copies and "
        "kernels the runtime queues ahead. The *chain* stream runs "
        f"{raw['chain']:,} operations one at a time, each submitted when the poller saw the last "
        "finish: work that waits on the host for a device event (an eviction before the next "
        f"upload, a reduction's combine); the device alone allows {device_rate:,.0f} a second. "
        "*Oldest of each lane*: events carry their stream and place (`PollOrder`), so a round asks "
        "only each stream's oldest unfinished one; *every watched item*: the policy before, each "
        "round asks all. Both in the same run, repetitions outside; median (min – max) over the "
        "repetitions.", "",
        "| window | policy | " + " | ".join(label for _, label, _ in METRICS) + " |",
        "|---:|---|" + "---:|" * len(METRICS),
    ]
    for window in windows:
        for policy, label in POLICIES.items():
            cells = []
            for metric, _, form in METRICS:
                s = table[f"{window}/{policy}"][metric]
                cells.append(f"{form.format(s['median'])} ({form.format(s['min'])} – "
                             f"{form.format(s['max'])})")
            lines.append(f"| {window:,} | {label} | " + " | ".join(cells) + " |")
    lines += ["", "Chain operations/s, oldest of each lane over every watched item, per repetition: " +
              "; ".join(f"window {w:,}: {r['median']:.2f}x ({r['min']:.2f} – {r['max']:.2f})"
                        for w, r in ratios.items()) + "."]
    lines += ["", "With few operations queued the policy before sees the chain a few µs sooner: its rounds "
              f"({raw['query_ns']} ns a question for every queued operation) keep its thread busy, "
              "so it never sleeps between rounds, at the cost of a core; with lanes the thread "
              "sleeps the pause (5 µs at least, plus the wake-up). From a few hundred queued "
              "operations on, the policy before spends each round asking all of them, and every "
              "host-dependent step waits for that round."]
    if burst_table:
        period_us = raw["burst_period_ns"] / 1000
        lines += ["", f"## A burst: {raw['burst']} operations of {period_us:g} µs queued at once", "",
                  f"One stream, {raw['burst']} operations submitted together and watched with their "
                  "lane (a batch of kernel launches queued ahead, as `Arrays::launch` does): how "
                  "late the poller saw each finished. An operation counts as running from when the "
                  "one before it was seen finished, so the pause follows the running one: the aim "
                  f"is 1/64 of its duration ({period_us / 64:.1f} µs), where timing the pause from "
                  "when the queue was watched would reach the 200 µs ceiling after 12.8 ms. "
                  f"Median (min – max) over {len(bursts)} repetitions.", "",
                  "| " + " | ".join(BURST_METRICS.values()) + " | worst late / duration |",
                  "|" + "---:|" * (len(BURST_METRICS) + 1)]
        cells = [f"{burst_table[m]['median']:.2f} ({burst_table[m]['min']:.2f} – "
                 f"{burst_table[m]['max']:.2f})" for m in BURST_METRICS]
        worst = burst_table["late_max_us"]["median"] / period_us
        lines.append("| " + " | ".join(cells) + f" | {100 * worst:.2f} % |")
    open(f"{args.out}.md", "w").write("\n".join(lines) + "\n")

    figure, axes = plt.subplots(1, 2, figsize=(10, 4))
    for policy, label in POLICIES.items():
        for axis, metric in zip(axes, ["chain_per_second", "late_median_us"]):
            medians = [table[f"{w}/{policy}"][metric]["median"] for w in windows]
            lows = [table[f"{w}/{policy}"][metric]["min"] for w in windows]
            highs = [table[f"{w}/{policy}"][metric]["max"] for w in windows]
            axis.errorbar(windows, medians,
                          yerr=[[m - lo for m, lo in zip(medians, lows)],
                                [hi - m for m, hi in zip(medians, highs)]],
                          marker="o", capsize=3, label=label)
    axes[0].axhline(device_rate, color="grey", linestyle=":", label="device alone")
    axes[0].set_ylabel("chain operations/s")
    axes[1].set_ylabel("chain operation seen late, median µs")
    for axis in axes:
        axis.set_xscale("symlog", base=2, linthresh=64)
        axis.set_xlim(-8, max(windows) * 1.5)
        axis.set_xticks(windows, [f"{w:,}" for w in windows])
        axis.set_yscale("log")
        axis.set_xlabel("operations queued on the other stream (window)")
        axis.legend()
    figure.suptitle(f"CUDA event poller: a host-dependent chain of {raw['period_ns'] / 1000:g} µs "
                    "operations beside a queue")
    figure.tight_layout()
    figure.savefig(f"{args.out}.png", dpi=100)


if __name__ == "__main__":
    main()
