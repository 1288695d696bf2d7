#!/usr/bin/env python3
"""Where an iterative lightning benchmark's time goes, from its per-rank Chrome traces.

Takes the last ITERATIONS x K kernel spans of each rank (K = the rank's kernels per iteration),
splits them into iterations and reports per rank: the timed window, the kernels' share of it, the
gap between one iteration's last kernel and the next one's first (what the exchange between
iterations costs), and the steps that start inside one median gap in order (thread, task, start, length).

Usage: trace_iterations.py --iterations N --kernel NAME TRACE.rank0.json [TRACE.rank1.json ...]
"""
import argparse
import json
import statistics


def load(path):
    data = json.load(open(path))
    events = data["traceEvents"] if isinstance(data, dict) else data
    threads = {e["tid"]: e["args"]["name"] for e in events
               if e.get("ph") == "M" and e.get("name") == "thread_name"}
    spans = sorted((e for e in events if e.get("ph") == "X"), key=lambda e: e["ts"])
    return threads, spans


def report(path, iterations, kernel):
    threads, spans = load(path)
    kernels = [e for e in spans if e["name"].startswith("kernel " + kernel)]
    per_iteration = len(kernels) // (iterations + 2)  # two untimed launches come first
    timed = kernels[-iterations * per_iteration:]
    rounds = [timed[i * per_iteration:(i + 1) * per_iteration] for i in range(iterations)]
    start, end = timed[0]["ts"], max(e["ts"] + e["dur"] for e in timed)
    busy = sum(e["dur"] for e in timed)
    gaps = []
    for before, after in zip(rounds, rounds[1:]):
        last = max(e["ts"] + e["dur"] for e in before)
        gaps.append((after[0]["ts"] - last, last, after[0]["ts"]))
    lines = [f"{path}: {per_iteration} kernel(s) per iteration; window {(end - start) / 1000:.2f} ms,"
             f" kernels busy {busy / 1000:.2f} ms ({100 * busy / (end - start):.0f} %);"
             f" kernel time per iteration {busy / iterations / 1000:.3f} ms"]
    if gaps:
        lengths = [g[0] for g in gaps]
        lines.append(f"  gap between iterations: median {statistics.median(lengths) / 1000:.3f} ms"
                     f" (min {min(lengths) / 1000:.3f}, max {max(lengths) / 1000:.3f})")
        median_gap = sorted(gaps)[len(gaps) // 2]
        lines.append("  steps inside the median gap (start after the last kernel, length):")
        for e in spans:
            if e["ts"] < median_gap[1] or e["ts"] >= median_gap[2]:
                continue  # receives posted long before and still waiting are left out
            lines.append(f"    {(e['ts'] - median_gap[1]) / 1000:+8.3f} ms  {e['dur'] / 1000:7.3f} ms"
                         f"  {threads.get(e['tid'], e['tid'])}: {e['name'][:70]}")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, required=True)
    parser.add_argument("--kernel", required=True)
    parser.add_argument("traces", nargs="+")
    args = parser.parse_args()
    for path in args.traces:
        print(report(path, args.iterations, args.kernel))


if __name__ == "__main__":
    main()
