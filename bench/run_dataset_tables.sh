#!/usr/bin/env bash
# Group-by + sum (10^3 and 10^6 keys) and a join of 10^7 rows with 10^6 in data sets against
# pandas on the same rows, in one run. Writes bench/results/dataset-tables.{json,md}.
# Usage: bench/run_dataset_tables.sh [rows, default 10000000] [build rows, default 1000000]
#        [repetitions, default 5]   (STRATA_BENCH_BUILD: build dir; pandas from
#        scripts/install-deps.sh --bench)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${STRATA_BENCH_BUILD:-$root/build/bench}
python=${STRATA_BENCH_PYTHON:-/usr/bin/python3}
rows=${1:-10000000}
build_rows=${2:-1000000}
repetitions=${3:-5}
if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=OFF
fi
cmake --build "$build" --target bench_dataset_tables -j2
cd "$root"
out=bench/results/dataset-tables
# Room for the rows, the routed copies and the pairs without spilling.
STRATA_HOST_CAPACITY=${STRATA_HOST_CAPACITY:-8GiB} \
  "${build#"$root/"}/bin/bench_dataset_tables" --rows "$rows" --build "$build_rows" \
  --repetitions "$repetitions" --out "$out.strata.json"
"$python" bench/dataset_tables_pandas.py "$rows" "$build_rows" "$repetitions" > "$out.pandas.json"
cat "$out.strata.json" "$out.pandas.json" > "$out.json"
rm "$out.strata.json" "$out.pandas.json"
"$python" - "$out" "bench/run_dataset_tables.sh $rows $build_rows $repetitions" <<'PY'
import datetime, json, sys
out, command = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(out + ".json") if l.strip()]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown")
md = ["# Data-set group-by and join against pandas\n",
      f"- machine: {cpu}; date: {datetime.date.today().isoformat()}; command: `{command}`",
      "- Strata: one rank, one task per partition (two on two cores); pandas: its one thread",
      "- rows (key, value): keys by a hash of the row number, values row % 1000 / 2; the join's "
      "build side has one row per key 0 .. build - 1; each tool's result row count is checked "
      "against the other's\n",
      "| operation | keys | result rows | Strata | pandas | Strata vs pandas |", "|---|---|---|---|---|---|"]
for r in rows:
    if r["tool"] != "strata":
        continue
    p = next(q for q in rows if q["tool"] == "pandas" and q["operation"] == r["operation"] and q["keys"] == r["keys"])
    if p["result_rows"] != r["result_rows"]:
        sys.exit(f"{r['operation']}: {r['result_rows']} result rows, pandas {p['result_rows']}")
    spread = lambda x: (max(x["seconds"]) - min(x["seconds"])) * 1e3
    md.append(f"| {r['operation']} | {r['keys']} | {r['result_rows']} | {r['median']*1e3:.1f} ms (spread {spread(r):.1f}) | "
              f"{p['median']*1e3:.1f} ms (spread {spread(p):.1f}) | {p['median']/r['median']:.2f}x |")
md.append("\nGoal: 3x pandas.")
open(out + ".md", "w").write("\n".join(md) + "\n")
PY
