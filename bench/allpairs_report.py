"""Turns bench/run_allpairs.sh's run reports into bench/results/allpairs.{md,json} and plots."""
import datetime
import json
import os
import platform
import re
import socket
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

runs_path, results, load_before, load_after, wall, busy, command, camera_items = sys.argv[1:9]
tag, devices_note = (sys.argv[9:11] + ["", ""])[:2]  # result files' suffix; the backends' devices
runs = [json.loads(line) for line in open(runs_path)]


def group(prefix):
    """Runs whose name starts with prefix, grouped by the name without its repetition."""
    out = {}
    for r in runs:
        if r["run"].startswith(prefix):
            out.setdefault(r["run"].rsplit("-", 1)[0], []).append(r)
    return out


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "values": values}


def fmt(s, scale=1.0, digits=1):
    return (f"{s['median'] * scale:.{digits}f} ({s['min'] * scale:.{digits}f} – "
            f"{s['max'] * scale:.{digits}f})")


cpu = re.search(r"^model name\s*:\s*(.*)$", open("/proc/cpuinfo").read(), re.M)
machine = {"host": socket.gethostname(), "cpu": cpu.group(1) if cpu else "?",
           "logical_cpus": os.cpu_count(), "kernel": platform.release(),
           "load_before": load_before, "load_after": load_after,
           "cpu_seconds_during_run": float(busy), "wall_seconds": int(wall)}
date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
report = {"date": date, "command": command, "machine": machine, "efficiency": {}, "cache": {},
          "scaling": {}}



def stealing_report():
    """Section 4: cache-aware stealing against the largest block, 1, 2 and 4 processes."""
    table = {}
    for name, rs in group("stealing-").items():
        _, np_, mode = name.split("-")
        table[(int(np_), mode)] = rs
    out = {"date": date, "command": command, "machine": machine, "stealing": {}}
    text = ["# All-pairs engine: cache-aware stealing", "",
            f"Date: {date} (host `{machine['host']}`)", "",
            f"- CPU: {machine['cpu']}, {machine['logical_cpus']} logical CPUs; Linux "
            f"{machine['kernel']}; the device is the CPU backend (no GPU on this machine)",
            f"- the machine is shared (other engineers build and test on its 2 cores): load "
            f"average before: {load_before}; after: {load_after}; all processes used "
            f"{float(busy):.0f} CPU-s in the {wall} s run",
            "", "```", f"cd {os.getcwd()} && {command}", "```", "",
            f"Camera identification, {camera_items} photos, 16 host-cache slots per process, "
            "the distributed cache on (h = 1), every process on this 2-core machine. *aware*: a "
            "thief takes, among the blocks at least a quarter the size of the largest, the one "
            "whose items its process's cache holds most (`allpairs_cache_aware_stealing`, the "
            "default); *largest*: the largest block (`--no-cache-aware-stealing`). R is the "
            "rocket paper's reuse figure, loads from file per item (§6.3: 1 is the minimum); "
            "remote hits are items fetched from another process's cache instead. Median over the "
            "repetitions (min – max). With one process there is nothing to steal on this "
            "machine (one device, the CPU backend, per process), so both modes are the same run.",
            "", "| processes | stealing | R (loads per item) | total loads | remote hits | "
            "remote steals | s | pairs/s |",
            "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for (np_, mode) in sorted(table):
        rs = table[(np_, mode)]
        entry = {k: summary([r[k] for r in rs]) for k in
                 ("loads_per_item", "loads", "remote_hits", "steals_remote", "seconds",
                  "pairs_per_second")}
        out["stealing"][f"{np_}-{mode}"] = entry
        text.append(f"| {np_} | {mode} | {fmt(entry['loads_per_item'], 1, 2)} | "
                    f"{fmt(entry['loads'], 1, 0)} | {fmt(entry['remote_hits'], 1, 0)} | "
                    f"{fmt(entry['steals_remote'], 1, 0)} | {fmt(entry['seconds'], 1, 2)} | "
                    f"{fmt(entry['pairs_per_second'])} |")
    text.append("")
    for np_ in (2, 4):
        aware = out["stealing"].get(f"{np_}-aware")
        largest = out["stealing"].get(f"{np_}-largest")
        if not aware or not largest:
            continue
        r_a, r_l = aware["loads_per_item"]["median"], largest["loads_per_item"]["median"]
        p_a, p_l = aware["pairs_per_second"]["median"], largest["pairs_per_second"]["median"]
        text.append(f"- {np_} processes: cache-aware stealing changes R by "
                    f"{(r_a / r_l - 1) * 100:+.0f} % ({r_l:.2f} → {r_a:.2f}) and pairs/s by "
                    f"{(p_a / p_l - 1) * 100:+.0f} % ({p_l:.0f} → {p_a:.0f}; the spreads show how "
                    "much of that the busy machine allows to read).")
    json.dump(out, open(f"{results}/allpairs-stealing.json", "w"), indent=2)
    open(f"{results}/allpairs-stealing.md", "w").write("\n".join(text) + "\n")
    print(f"wrote {results}/allpairs-stealing.md")


def backends_report():
    """Section 5: each application on each backend, one process: pairs/s and efficiency."""
    table = {}
    for name, rs in group("backend-").items():
        _, backend, app = name.split("-")
        table.setdefault(app, {})[backend] = rs
    out = {"date": date, "command": command, "machine": machine, "devices": devices_note,
           "backends": {}}
    text = ["# All-pairs applications on each backend", "",
            f"Date: {date} (host `{machine['host']}`)", "",
            f"- CPU: {machine['cpu']}, {machine['logical_cpus']} logical CPUs; Linux "
            f"{machine['kernel']}", f"- {devices_note}",
            f"- load average before: {load_before}; after: {load_after}", "",
            "```", f"cd {os.getcwd()} && {command}", "```", "",
            "One process, every item cached, the generated data sets; the backends alternate within each repetition. Median over "
            "the repetitions (min – max). *Efficiency* is the rocket paper's system efficiency "
            "(§6.1, eq. 5) with the stage means of the run; *calibrated* takes stage times measured "
            "alone on the idle device before the run (the engine's calibration: preprocessings one "
            "at a time, comparisons in back-to-back batches). "
            "*vs cpu*: pairs/s over the CPU backend's, same run.", "",
            "| application | items | backend | pairs/s | vs cpu | t_preprocess ms | t_compare ms | "
            "efficiency % | calibrated t_pre / t_cmp ms | calibrated efficiency % |",
            "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for app in sorted(table):
        cpu_rate = None
        if "cpu" in table[app]:
            cpu_rate = statistics.median([r["pairs_per_second"] for r in table[app]["cpu"]])
        for backend, rs in sorted(table[app].items()):
            entry = {k: summary([r[k] for r in rs]) for k in
                     ("pairs_per_second", "efficiency", "calibrated_efficiency", "seconds")}
            for stage in ("preprocess", "compare", "calibrated_preprocess", "calibrated_compare"):
                entry["t_" + stage] = summary([r["stages"][stage]["mean"] for r in rs])
            rate = entry["pairs_per_second"]["median"]
            entry["vs_cpu"] = rate / cpu_rate if cpu_rate else None
            out["backends"].setdefault(app, {})[backend] = entry
            entry["items"] = rs[0]["items"]
            vs_cpu = f"{entry['vs_cpu']:.2f}" if cpu_rate else "–"
            text.append(f"| {app} | {entry['items']} | {backend} | "
                        f"{fmt(entry['pairs_per_second'])} | {vs_cpu} | ")
            text[-1] += (f"{fmt(entry['t_preprocess'], 1e3, 3)} | {fmt(entry['t_compare'], 1e3, 3)}"
                         f" | {fmt(entry['efficiency'], 100)} | "
                         f"{entry['t_calibrated_preprocess']['median'] * 1e3:.3f} / "
                         f"{entry['t_calibrated_compare']['median'] * 1e3:.3f} | "
                         f"{fmt(entry['calibrated_efficiency'], 100)} |")
    low = [f"{app} on {b} ({e['calibrated_efficiency']['median'] * 100:.1f} %)"
           for app, bs in out["backends"].items() for b, e in bs.items()
           if e["calibrated_efficiency"]["median"] < 0.95]
    text += ["", "Goal ≥ 95 % calibrated efficiency: "
             + ("met everywhere." if not low else "not met for " + ", ".join(low) + "."), ""]
    missed = sorted({f"{app} on {backend}" for app, bs in table.items()
                     for backend, rs in bs.items() if not all(r.get("truth_recovered", True)
                                                              for r in rs)})
    if missed:
        text += ["The generated truth was not recovered (the run completed; `strata allpairs "
                 "run` exits with status 3) in: " + ", ".join(missed) + ".", ""]
    json.dump(out, open(f"{results}/allpairs-backends{tag}.json", "w"), indent=2)
    open(f"{results}/allpairs-backends{tag}.md", "w").write("\n".join(text) + "\n")
    print(f"wrote {results}/allpairs-backends{tag}.md")


if group("backend-"):
    backends_report()
if group("stealing-"):
    stealing_report()
if not group("efficiency-"):
    sys.exit(0)

lines = ["# All-pairs engine: efficiency, cache size, processes", "",
         f"Date: {date} (host `{machine['host']}`)", "",
         f"- CPU: {machine['cpu']}, {machine['logical_cpus']} logical CPUs; Linux "
         f"{machine['kernel']}; the device is the CPU backend (no GPU on this machine)",
         f"- load average before: {load_before}; after: {load_after}; all processes used "
         f"{float(busy):.0f} CPU-s in the {wall} s run",
         "", "```", f"cd {os.getcwd()} && {command}", "```", "",
         "Every figure is a median over the repetitions, with min – max. *Efficiency* is the "
         "rocket paper's system efficiency (§6.1, eq. 5): T_min / T, with T_min = n t_preprocess + "
         "pairs t_compare over the devices (eq. 4), t_x the stage means measured during the run "
         "(the device's in-order compute queue), T the run's wall time — as the paper computes it. "
         "The device here is the CPU backend: its kernels share the two cores with parsing and the "
         "runtime, so the means of the run include waiting for a core. The column *with calibrated "
         "stage times* takes instead stage times measured alone on the idle device before the run: "
         "the median of 8 preprocessings one at a time, and 28 comparisons back to back, the "
         "median batch divided by 28 (the first items only, so for irregular "
         "comparisons — microscopy — they are a sample, not the set's mean): it says how far the "
         "run is from the device's own speed.", "",
         "## 1. System efficiency, one process, every item cached", "",
         "| application | items | pairs | pairs/s | t_preprocess ms | t_compare ms | T_min s | T s | "
         "efficiency % | calibrated t_pre / t_cmp ms | with calibrated stage times % |",
         "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
for name, rs in sorted(group("efficiency-").items()):
    app = name.split("-", 1)[1]
    eff = summary([r["efficiency"] for r in rs])
    entry = {"efficiency": eff, "pairs_per_second": summary([r["pairs_per_second"] for r in rs]),
             "seconds": summary([r["seconds"] for r in rs]),
             "model_minimum_seconds": summary([r["model_minimum_seconds"] for r in rs]),
             "t_preprocess": summary([r["stages"]["preprocess"]["mean"] for r in rs]),
             "t_compare": summary([r["stages"]["compare"]["mean"] for r in rs]),
             "t_preprocess_calibrated": summary(
                 [r["stages"]["calibrated_preprocess"]["mean"] for r in rs]),
             "t_compare_calibrated": summary(
                 [r["stages"]["calibrated_compare"]["mean"] for r in rs]),
             "calibrated_efficiency": summary([r["calibrated_efficiency"] for r in rs]),
             "items": rs[0]["items"], "pairs": rs[0]["pairs_total"]}
    report["efficiency"][app] = entry
    lines.append(f"| {app} | {entry['items']} | {entry['pairs']} | "
                 f"{fmt(entry['pairs_per_second'])} | {fmt(entry['t_preprocess'], 1e3, 2)} | "
                 f"{fmt(entry['t_compare'], 1e3, 3)} | {fmt(entry['model_minimum_seconds'], 1, 2)} "
                 f"| {fmt(entry['seconds'], 1, 2)} | {fmt(eff, 100)} | "
                 f"{entry['t_preprocess_calibrated']['median'] * 1e3:.2f} / "
                 f"{entry['t_compare_calibrated']['median'] * 1e3:.3f} | "
                 f"{fmt(entry['calibrated_efficiency'], 100)} |")
met = [a for a, e in report["efficiency"].items() if e["efficiency"]["median"] >= 0.95]
lines += ["", f"Goal ≥ 95 %: met for {', '.join(met) if met else 'none'}"
          f"{'' if len(met) == len(report['efficiency']) else '; not met for ' + ', '.join(a for a in report['efficiency'] if a not in met)}.",
          ""]

lines += ["## 2. R and efficiency against the cache size (camera, cf. Fig. 9)", "",
          f"{camera_items} photos; device and host caches of S slots each (one slot = one "
          "preprocessed photo).", "",
          "| S (slots) | share of the items | R (loads per item) | efficiency % | pairs/s |",
          "| ---: | ---: | ---: | ---: | ---: |"]
cache = {}
for name, rs in group("cache-").items():
    cache[int(name.split("-")[1])] = rs
xs, rs_r, rs_e = [], [], []
for slots in sorted(cache):
    rs = cache[slots]
    r_ = summary([r["loads_per_item"] for r in rs])
    e_ = summary([r["efficiency"] for r in rs])
    p_ = summary([r["pairs_per_second"] for r in rs])
    report["cache"][slots] = {"loads_per_item": r_, "efficiency": e_, "pairs_per_second": p_}
    xs.append(slots)
    rs_r.append(r_["median"])
    rs_e.append(e_["median"] * 100)
    lines.append(f"| {slots} | {slots / int(camera_items) * 100:.0f} % | {fmt(r_, 1, 2)} | "
                 f"{fmt(e_, 100)} | {fmt(p_)} |")
fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(xs, rs_e, "o-", color="tab:blue", label="system efficiency (%)")
ax.set_xscale("log", base=2)
ax.set_xlabel("cache size S (slots)")
ax.set_ylabel("system efficiency (%)", color="tab:blue")
ax2 = ax.twinx()
ax2.plot(xs, rs_r, "s--", color="tab:red", label="R")
ax2.set_ylabel("R (loads per item)", color="tab:red")
ax.set_title("camera identification: efficiency and R vs cache size")
fig.tight_layout()
fig.savefig(f"{results}/allpairs-cache.png", dpi=110)
lines += ["", "![efficiency and R against cache size](allpairs-cache.png)", ""]

lines += ["## 3. Processes, with and without the distributed cache (camera, cf. Fig. 12)", "",
          "16 host-cache slots per process, h = 1; all processes on this 2-core machine (so the "
          "time cannot fall with more processes; the loads are the point).", "",
          "| processes | distributed cache | total loads | R | remote hits | s | pairs/s |",
          "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
scaling = {}
for name, rs in group("scaling-").items():
    _, np_, mode = name.split("-")
    scaling[(int(np_), mode)] = rs
plot = {"dist": [], "nodist": []}
for (np_, mode) in sorted(scaling):
    rs = scaling[(np_, mode)]
    loads = summary([r["loads"] for r in rs])
    r_ = summary([r["loads_per_item"] for r in rs])
    hits = summary([r["remote_hits"] for r in rs])
    secs = summary([r["seconds"] for r in rs])
    pps = summary([r["pairs_per_second"] for r in rs])
    report["scaling"][f"{np_}-{mode}"] = {"loads": loads, "loads_per_item": r_,
                                          "remote_hits": hits, "seconds": secs,
                                          "pairs_per_second": pps}
    plot[mode].append((np_, loads["median"]))
    lines.append(f"| {np_} | {'yes' if mode == 'dist' else 'no'} | {fmt(loads, 1, 0)} | "
                 f"{fmt(r_, 1, 2)} | {fmt(hits, 1, 0)} | {fmt(secs, 1, 2)} | {fmt(pps)} |")
fig, ax = plt.subplots(figsize=(6, 4))
for mode, label in [("dist", "with distributed cache"), ("nodist", "without")]:
    pts = sorted(plot[mode])
    ax.plot([p for p, _ in pts], [l for _, l in pts], "o-", label=label)
ax.set_xlabel("processes")
ax.set_ylabel("total loads")
ax.set_xticks([1, 2, 4])
ax.legend()
ax.set_title("camera identification: loads against processes")
fig.tight_layout()
fig.savefig(f"{results}/allpairs-scaling.png", dpi=110)
fell = all(report["scaling"].get(f"{n}-dist", {}).get("loads", {}).get("median", 0) <
           report["scaling"].get(f"{n}-nodist", {}).get("loads", {}).get("median", 0)
           for n in (2, 4))
lines += ["", f"Total loads fall with the distributed cache on 2 and 4 processes: "
          f"{'yes' if fell else 'NO'}.", "",
          "![loads against processes](allpairs-scaling.png)", ""]
json.dump(report, open(f"{results}/allpairs.json", "w"), indent=2)
open(f"{results}/allpairs.md", "w").write("\n".join(lines) + "\n")
print(f"wrote {results}/allpairs.md")
