#!/usr/bin/env bash
# Co-clustering (the lightning paper's §4.6 application): Strata's lightning_coclustering against
# the plain NumPy implementation of CGC's algorithm (float64, OpenBLAS under NumPy), on the same
# planted matrices, seconds per iteration and the speedup; both runs' labels must be equal.
# Writes bench/results/lightning-coclustering.{json,md}.
# Usage: bench/run_lightning_coclustering.sh [repetitions, default 3] [devices, default cpu]
#        (settings: bench/common.sh)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/common.sh"
repetitions=${1:-3}
devices=${2:-cpu}
results=$root/bench/results
mkdir -p "$results"
bench_build lightning_coclustering

source "$root/bench/quiet_machine.sh"
wait_quiet "$quiet_wait"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
raw=$results/.lightning-coclustering-raw.txt
: >"$raw"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
k=4 l=3 iterations=10
for size in "1000 1000" "2000 2000" "4000 2000"; do
  read -r rows cols <<<"$size"
  for ((r = 0; r < repetitions; ++r)); do
    strata_line=$("$build/bin/lightning_coclustering" --rows "$rows" --cols "$cols" --k $k --l $l \
      --iterations $iterations --chunk $((rows / 4)) --devices "$devices" --no-check --seed $((r + 1)) \
      --save-matrix "$work/m.npy" --labels "$work/labels" | grep '^time ')
    numpy_line=$("$python" "$root/bench/lightning_coclustering_numpy.py" "$work/m.npy" \
      "$work/labels" $k $l $iterations)
    echo "$rows|$cols|$strata_line|$numpy_line" >>"$raw"
  done
  echo "done: ${rows}x${cols}" >&2
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
"$python" - "$raw" "$results/lightning-coclustering$tag" \
  "cd $root && bench/run_lightning_coclustering.sh $repetitions $devices" "$devices" \
  "$load_before" "$load_after" <<'PY'
import datetime, json, platform, re, statistics, sys
raw, prefix, command, devices, before, after = sys.argv[1:]
points = {}
for line in open(raw):
    rows, cols, strata, numpy = line.rstrip("\n").split("|")
    s = float(re.search(r"\(([0-9.]+) s per iteration\)", strata).group(1))
    n = float(re.search(r"numpy: ([0-9.]+) s per iteration", numpy).group(1))
    equal = "labels equal" in numpy
    points.setdefault((int(rows), int(cols)), []).append((s, n, equal))
def summary(v):
    return {"median": statistics.median(v), "min": min(v), "max": max(v), "runs": v}
date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
cpus = open("/proc/cpuinfo").read().count("processor")
rows = []
for (m, n), runs in sorted(points.items()):
    rows.append({"rows": m, "cols": n, "strata_s_per_iteration": summary([r[0] for r in runs]),
                 "numpy_s_per_iteration": summary([r[1] for r in runs]),
                 "speedup": summary([r[1] / r[0] for r in runs]),
                 "labels_equal": all(r[2] for r in runs)})
json.dump({"date": date, "machine": f"{platform.node()}, {cpus} CPUs", "command": command,
           "devices": devices, "load_before": before, "load_after": after, "points": rows},
          open(prefix + ".json", "w"), indent=1)
lines = ["# Co-clustering: Strata against NumPy (the lightning paper's §4.6)", "",
         f"Date: {date} (host `{platform.node()}`, {cpus} logical CPUs; load average before "
         f"{before}, after {after}); Strata devices: `{devices}`.", "", "## Command", "", "```",
         command, "```", "",
         "CGC's algorithm (k = 4, l = 3, 10 iterations) on planted matrices (a different seed "
         "each repetition): lightning_coclustering (float32 matrix, reduce(+) accesses, chunks "
         "of a quarter of the rows) against the plain NumPy implementation the tests check its "
         "labels with (float64 as CGC, OpenBLAS under NumPy on every core), on the matrix the app "
         "saved; seconds per iteration, median (min – max); speedup = NumPy / Strata per run. "
         "Labels must be equal in every run (the NumPy labels are compared with the app's).", "",
         "| matrix | Strata s/iteration | NumPy s/iteration | speedup | labels equal |",
         "| --- | ---: | ---: | ---: | --- |"]
for r in rows:
    s, n, x = r["strata_s_per_iteration"], r["numpy_s_per_iteration"], r["speedup"]
    lines.append(f"| {r['rows']}x{r['cols']} | {s['median']:.4f} ({s['min']:.4f} – {s['max']:.4f}) "
                 f"| {n['median']:.4f} ({n['min']:.4f} – {n['max']:.4f}) | {x['median']:.2f}x "
                 f"({x['min']:.2f} – {x['max']:.2f}) | {'yes' if r['labels_equal'] else 'NO'} |")
where = ("Strata on the GPU, NumPy on this machine's CPU cores" if "cuda" in devices or
         "opencl" in devices else "both run on the same CPU cores")
lines += ["", f"The paper: 4.35x NumPy on one P100 GPU (NumPy on the CPU). Here: {where}."]
open(prefix + ".md", "w").write("\n".join(lines) + "\n")
PY
rm -f "$raw"
echo "wrote $results/lightning-coclustering$tag.md and .json" >&2
