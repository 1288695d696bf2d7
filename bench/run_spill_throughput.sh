#!/usr/bin/env bash
# Builds and runs bench_spill_throughput (spill vs raw write()/read() in the same run), checks
# whether lz4/zstd compression could pay at the measured disk speeds, and writes
# bench/results/spill-throughput.{json,md}.
# Usage: bench/run_spill_throughput.sh [directory on the file system to measure, default $TMPDIR
#        or /tmp]   (STRATA_BENCH_BUILD: build directory; STRATA_SPILL_REPETITIONS: default 9)
# Disk use: 3 GiB at most (1 GiB of files for each of raw, raw 1 MiB and spill), plus 128 MiB of compression samples;
# all removed at the end.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${STRATA_BENCH_BUILD:-$root/build/bench}
dir=${1:-${TMPDIR:-/tmp}}
repetitions=${STRATA_SPILL_REPETITIONS:-9}
results=$root/bench/results
mkdir -p "$results"

if [[ ! -f $build/build.ninja ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=OFF
fi
cmake --build "$build" --target bench_spill_throughput -j2

samples=$(mktemp -d "$dir/strata-spill-samples-XXXXXX")
trap 'rm -rf "$samples"' EXIT
cmd=("$build/bin/bench_spill_throughput" --dir "$dir" --chunk-mib 64 --chunks 16
     --repetitions "$repetitions")
command_line="cd ${root} && ${cmd[*]#"$root/"}"

source "$root/bench/quiet_machine.sh"
# Other work on 2 cores and one disk distorts the result (STRATA_BENCH_QUIET_WAIT, default 300 s).
wait_quiet "${STRATA_BENCH_QUIET_WAIT:-300}"

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "running: ${command_line}" >&2
read -r busy0 _ < <(cpu_busy)
TIMEFORMAT='%R %U %S'
{ time "${cmd[@]}" --samples "$samples" >"$results/.spill-raw.json" 2>&3; } 3>&2 2>"$results/.times"
read -r wall own_user own_sys <"$results/.times" && rm -f "$results/.times"
read -r busy1 _ < <(cpu_busy)
other=$(echo "$busy1 - $busy0 - $own_user - $own_sys" | bc)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# Compression speed and ratio of lz4 and zstd (level 1, their fastest useful levels) on the
# benchmark's random payload and on typical numeric data (float32 of a noisy sine).
compression=$results/.spill-compression.txt
: >"$compression"
for tool in lz4 zstd; do
  command -v "$tool" >/dev/null || continue
  for sample in random floats; do
    echo "$tool $sample $("$tool" -b1 -i2 "$samples/$sample.bin" 2>&1 | tr '\r' '\n' |
      grep -E 'MB/s *, *[0-9.]+ *MB/s' | tail -1)" >>"$compression"
  done
done

python3 - "$results" "$command_line" "$load_before" "$load_after" "$wall" "$other" "$dir" \
  "$(grep -m1 '^CMAKE_BUILD_TYPE:' "$build/CMakeCache.txt" | cut -d= -f2)" <<'PYTHON'
import datetime, json, os, platform, re, socket, statistics, subprocess, sys

results, command, load_before, load_after, wall, other, directory, build_type = sys.argv[1:]
raw = json.load(open(f"{results}/.spill-raw.json"))
os.remove(f"{results}/.spill-raw.json")
rates = raw["bytes_per_second"]

def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "values": values}

def first(pattern, text, default="?"):
    m = re.search(pattern, text, re.M)
    return m.group(1).strip() if m else default

cpuinfo = open("/proc/cpuinfo").read()
fs = subprocess.run(["df", "-T", directory], capture_output=True, text=True).stdout.splitlines()[-1]
machine = {
    "host": socket.gethostname(),
    "cpu": first(r"^model name\s*:\s*(.*)$", cpuinfo),
    "logical_cpus": os.cpu_count(),
    "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
    "kernel": platform.release(),
    "file_system": " ".join(fs.split()[:2]) + f" mounted on {fs.split()[-1]}",
    "load_before": load_before, "load_after": load_after,
    "other_cpu_seconds": float(other), "wall_seconds": float(wall),
}
# Other processes' CPU use above a tenth of the machine's capacity makes a run disturbed.
disturbed = float(other) > 0.1 * (os.cpu_count() or 1) * float(wall)
machine["disturbed"] = disturbed
phases = {name: summary(values) for name, values in rates.items()}
# Spill against the faster raw variant of each phase (by median): one call per chunk, or 1 MiB.
ratios = {}
for kind in ["write", "write_buffered", "read"]:
    base_name = max(["raw", "raw1m"], key=lambda n: phases[f"{n}_{kind}"]["median"])
    spill, base = rates[f"spill_{kind}"], rates[f"{base_name}_{kind}"]
    per_rep = [s / r for s, r in zip(spill, base)]  # both ran in the same repetition
    ratios[kind] = {"against": base_name,
                    "of_medians": phases[f"spill_{kind}"]["median"] / phases[f"{base_name}_{kind}"]["median"],
                    "per_repetition": summary(per_rep)}

compression = []
for line in open(f"{results}/.spill-compression.txt"):
    tool, sample, text = line.split(" ", 2)
    m = re.search(r"\(x?([\d.]+)\),\s*([\d.]+) MB/s\s*,\s*([\d.]+) MB/s", text)
    if m:
        compression.append({"tool": tool, "sample": sample, "ratio": float(m.group(1)),
                            "compress_bytes_per_second": float(m.group(2)) * 1e6,
                            "decompress_bytes_per_second": float(m.group(3)) * 1e6})
os.remove(f"{results}/.spill-compression.txt")
# Compressing before writing (one thread, no overlap) pays iff 1/C + 1/(r W) < 1/W, i.e. the
# time to compress plus to write the smaller file beats writing the original; likewise reads.
disk_write = max(phases["raw_write"]["median"], phases["raw1m_write"]["median"])
disk_read = max(phases["raw_read"]["median"], phases["raw1m_read"]["median"])
for c in compression:
    r = c["ratio"]
    c["effective_write_bytes_per_second"] = 1 / (1 / c["compress_bytes_per_second"] + 1 / (r * disk_write))
    c["effective_read_bytes_per_second"] = 1 / (1 / c["decompress_bytes_per_second"] + 1 / (r * disk_read))
    c["pays_for_write"] = c["effective_write_bytes_per_second"] > disk_write
    c["pays_for_read"] = c["effective_read_bytes_per_second"] > disk_read

date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
report = {"date": date, "command": command, "build_type": build_type, "machine": machine,
          "setup": {k: raw[k] for k in raw if k != "bytes_per_second"},
          "bytes_per_second": phases, "ratio_spill_to_raw": ratios, "compression": compression,
          "goal": "spill >= 80% of the faster raw variant (write to disk and cold read)"}
json.dump(report, open(f"{results}/spill-throughput.json", "w"), indent=2)

mb = lambda v: f"{v / 1e6:,.0f}"
piece = f"{raw['read_piece_bytes'] >> 20} MiB"
names = {"write": "write, to disk (incl. fdatasync)", "write_buffered": "write, page cache only",
         "read": "read, cold cache"}
lines = [
    "# Spill throughput: SpillStore vs raw write()/read()", "",
    f"Date: {date} (host `{machine['host']}`)", "",
    "## Machine", "",
    f"- CPU: {machine['cpu']}, {machine['logical_cpus']} logical CPUs, {machine['memory_gib']} GiB memory",
    f"- kernel: Linux {machine['kernel']}; file system measured: {machine['file_system']} (`{directory}`)",
    f"- load average before: {load_before}; after: {load_after}; other processes used "
    f"{float(other):.1f} CPU-s during the {float(wall):.0f} s run",
    f"- build type: {build_type}", "",
    "## Command", "", "```", command, "```", "",
    "## What is measured", "",
    f"Each of {raw['repetitions']} repetitions writes {raw['chunks']} chunks of "
    f"{raw['chunk_bytes'] >> 20} MiB ({raw['chunks'] * raw['chunk_bytes'] >> 20} MiB) of random "
    "(incompressible) bytes three times, each time to fresh files: *raw*, plain `write()` with "
    "one call per chunk; *raw 1 MiB*, plain `write()` calls of 1 MiB; *spill*, "
    "`SpillStore::write` (temp file, 32-byte header, payload hashed with XXH3-64 and written in "
    "1 MiB pieces, header rewritten with the checksum, rename). *Write, to disk* is the time until "
    "`fdatasync()` of every file has returned; *page cache only* is the time until the last "
    "`write()` returned (what the spilling thread waits for while dirty memory is below the "
    "kernel's limit; with this machine's memory 1 GiB never reaches it). Then every file is "
    "dropped from the page cache (`posix_fadvise(DONTNEED)` on the synced, clean files; "
    f"`mincore()` found at most {raw['max_resident_fraction_before_read'] * 100:.1f} % of pages "
    "still resident) and read back cold into a 64 MiB buffer: raw with one `read()` call per "
    "chunk or calls of 1 MiB, spill with `SpillStore::read` (size check, "
    f"`posix_fadvise(SEQUENTIAL)`, `preadv()` of the header with the first {piece} piece, then "
    f"`pread()` of {piece} pieces, each hashed as it arrives while the kernel's readahead "
    "fetches the next, checksum verified). The three run in "
    "the same repetition, their order rotating; spill is compared with the faster raw variant "
    "of each phase (by median), and per repetition with that variant's run of the same "
    "repetition. Rates in MB/s (10^6 bytes/s).", "",
    "## Results", "",
    "| phase | raw median (min – max) | raw 1 MiB median (min – max) | spill median (min – max) "
    "| spill / faster raw (medians) | per repetition: median (min – max) |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
]
span = lambda p: f"{mb(p['median'])} ({mb(p['min'])} – {mb(p['max'])})"
for kind in ["write", "read", "write_buffered"]:
    q = ratios[kind]
    p = q["per_repetition"]
    lines.append(f"| {names[kind]} | {span(phases[f'raw_{kind}'])} | {span(phases[f'raw1m_{kind}'])} | "
                 f"{span(phases[f'spill_{kind}'])} | {q['of_medians'] * 100:.0f} % "
                 f"({'raw 1 MiB' if q['against'] == 'raw1m' else 'raw'}) | {p['median'] * 100:.0f} % "
                 f"({p['min'] * 100:.0f} – {p['max'] * 100:.0f} %) |")
met = lambda kind: "met" if ratios[kind]["of_medians"] >= 0.8 else "NOT met"
lines += ["",
          f"Goal (spill ≥ 80 % of the faster raw variant): write to disk {met('write')}, cold read {met('read')}"
          f"{' (not a valid verdict: a disturbed run, below)' if disturbed else ''}. "
          f"Page-cache-only writes: {met('write_buffered')}; there the spill pays for hashing "
          "its payload (XXH3, AVX2 where the CPU has it, on data still in the cache), the worst "
          "case, reached only while the data fits in dirty memory."]
# The read order rotates (raw, raw 1 MiB, spill; then shifted by one per repetition): whoever
# reads first does so right after the writes, while the disk may still be busy with them.
first = {n: [v for r, v in enumerate(rates[f"{n}_read"]) if r % 3 == i]
         for i, n in enumerate(["raw", "raw1m", "spill"])}
if all(first.values()):
    lines += ["", "Cold reads by the variant that read first in its repetition, right after the "
              "writes (medians, MB/s): " + ", ".join(
                  f"{label} {mb(statistics.median(first[n]))}" for n, label in
                  [("raw", "raw"), ("raw1m", "raw 1 MiB"), ("spill", "spill")]) + "."]
if disturbed:
    lines += ["", f"**Disturbed run**: other processes used {float(other):.0f} CPU-s of the "
              f"{(os.cpu_count() or 1) * float(wall):.0f} the machine had during the run, so "
              "these rates and ratios are not reliable; rerun on a quiet machine."]
if any(ratios[k]["of_medians"] > 1.05 for k in ratios):
    lines += ["", "Where spill beats raw (over 100 %), that is not a speed-up to rely on: it does the "
              "same I/O plus hashing, and the raw variants' wide spread shows how much other load "
              "on this shared machine moves single runs; read it as \"no slower than raw\"."]
lines += ["",
          "## Compression", "",
          "lz4 and zstd at level 1 (their CLI benchmarks, `-b1 -i2`, one thread) on the 64 MiB "
          "random payload and on 64 MiB of typical numeric data (float32 samples of a noisy sine). "
          "Effective rate = 1 / (1/compress + 1/(ratio × disk)), compressing then writing on one "
          "thread; compression pays if that beats the faster raw disk rate measured above "
          f"({mb(disk_write)} MB/s write, {mb(disk_read)} MB/s read).", "",
          "| tool | data | ratio | compress MB/s | decompress MB/s | effective write MB/s | "
          "pays? | effective read MB/s | pays? |",
          "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | --- |"]
for c in compression:
    lines.append(f"| {c['tool']} | {c['sample']} | {c['ratio']:.3f} | "
                 f"{mb(c['compress_bytes_per_second'])} | {mb(c['decompress_bytes_per_second'])} | "
                 f"{mb(c['effective_write_bytes_per_second'])} | "
                 f"{'yes' if c['pays_for_write'] else 'no'} | "
                 f"{mb(c['effective_read_bytes_per_second'])} | "
                 f"{'yes' if c['pays_for_read'] else 'no'} |")
paying = [f"{c['tool']} on {c['sample']} ({'write' if c['pays_for_write'] else 'read'})"
          for c in compression if c["pays_for_write"] or c["pays_for_read"]]
lines += ["", "Conclusion: " + (
    "compression pays for none of these at this machine's disk rates, not even where the data "
    "compresses a little, so the spill store writes uncompressed (issue 5: compression only if "
    "a benchmark shows it pays)." if not paying else
    "compression would pay for " + ", ".join(paying) + ": worth adding for such data.")]
open(f"{results}/spill-throughput.md", "w").write("\n".join(lines) + "\n")
PYTHON
echo "wrote $results/spill-throughput.md and $results/spill-throughput.json" >&2
