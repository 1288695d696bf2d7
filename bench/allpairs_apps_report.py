#!/usr/bin/env python3
"""Turns the log of run_gpu.sh's allpairs_apps section (each all-pairs application on OpenCL and
CUDA, one run each) into PREFIX.md and PREFIX.json: pairs/s, the OpenCL/CUDA ratio of the same
run, stage means and the rocket paper's system efficiency from the run's own stage means and from
stages calibrated alone on the idle device.
Usage: allpairs_apps_report.py LOG ENVIRONMENT PREFIX"""
import json
import re
import sys


def parse(log_text):
    runs = []
    run = None
    for line in log_text.splitlines():
        header = re.match(r"=== (\w+), (\d+) items, (\w+)", line)
        if header:
            run = {"application": header[1], "items": int(header[2]), "backend": header[3]}
            runs.append(run)
            continue
        if run is None:
            continue
        if m := re.search(r"pairs/s ([\d.]+)", line):
            run["pairs_per_s"] = float(m[1])
        elif m := re.match(r"\s+(preprocess|compare)(\*?)\s+\d+ runs\s+mean\s+([\d.]+) ms", line):
            run[("calibrated_" if m[2] else "") + m[1] + "_ms"] = float(m[3])
        elif m := re.search(r"system efficiency ([\d.]+)%", line):
            run["efficiency_percent"] = float(m[1])
        elif m := re.search(r"with the stage times \*.*efficiency ([\d.]+)%", line):
            run["calibrated_efficiency_percent"] = float(m[1])
    return runs


def cell(run, key, digits):
    return f"{run[key]:.{digits}f}" if key in run else "–"


def main():
    log_path, environment_path, prefix = sys.argv[1:4]
    runs = parse(open(log_path).read())
    environment = open(environment_path).read().splitlines()
    facts = {k.strip(): v.strip() for k, _, v in (l.partition(":") for l in environment[:4])}
    cuda = {(r["application"], r["items"]): r.get("pairs_per_s") for r in runs
            if r["backend"] == "cuda"}
    for run in runs:
        reference = cuda.get((run["application"], run["items"]))
        if reference and "pairs_per_s" in run:
            run["vs_cuda"] = run["pairs_per_s"] / reference
    lines = [
        "# All-pairs applications on a GPU: NVIDIA's OpenCL against CUDA",
        "",
        f"Date: {facts.get('date', '?')}; GPU: {facts.get('GPU', '?')}; CPU: {facts.get('CPU', '?')}.",
        "",
        "```",
        "bench/pack_gpu.sh   # here; there: bench/run_gpu.sh OUT allpairs_apps",
        "```",
        "",
        "Each application's generated data set, one process, one device, every item cached; one "
        "run per backend (no spread: one run each, the backends one after the other). *vs CUDA*: "
        "pairs/s over the CUDA run's, same section. *Efficiency* is the rocket paper's system "
        "efficiency (§6.1, eq. 5) from the run's stage means; *calibrated* from the medians of "
        "stages timed alone on the idle device before the run (first items only). Goal (issue "
        "18): ≥ 95 % calibrated efficiency.",
        "",
        "| application | items | backend | pairs/s | vs CUDA | t_preprocess ms | t_compare ms | "
        "efficiency % | calibrated t_pre / t_cmp ms | calibrated efficiency % |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in runs:
        lines.append(
            f"| {r['application']} | {r['items']} | {r['backend']} | {cell(r, 'pairs_per_s', 1)} | "
            f"{cell(r, 'vs_cuda', 2)} | {cell(r, 'preprocess_ms', 3)} | {cell(r, 'compare_ms', 3)} | "
            f"{cell(r, 'efficiency_percent', 1)} | {cell(r, 'calibrated_preprocess_ms', 3)} / "
            f"{cell(r, 'calibrated_compare_ms', 3)} | {cell(r, 'calibrated_efficiency_percent', 1)} |")
    missing = [f"{r['application']} on {r['backend']}" for r in runs if "pairs_per_s" not in r]
    if missing:
        lines += ["", "No report (cut at the section's time limit or failed): " +
                  ", ".join(missing) + "."]
    open(prefix + ".md", "w").write("\n".join(lines) + "\n")
    json.dump({"environment": facts, "runs": runs}, open(prefix + ".json", "w"), indent=1)
    print(f"wrote {prefix}.md and .json")


if __name__ == "__main__":
    main()
