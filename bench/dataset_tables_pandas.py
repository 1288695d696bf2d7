#!/usr/bin/env python3
"""The peer of bench/dataset_tables.cpp: the same rows in pandas (one thread, as pandas runs),
summed by key and joined. Prints one JSON line per operation and key count.

usage: dataset_tables_pandas.py ROWS BUILD REPETITIONS
"""
import json
import sys
import time

import numpy as np
import pandas as pd


def mix(x):
    with np.errstate(over="ignore"):
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def table(rows, keys):
    i = np.arange(rows, dtype=np.uint64)
    return pd.DataFrame({"key": mix(i) % np.uint64(keys),
                         "value": (i % np.uint64(1000)).astype(np.float64) * 0.5})


def timed(repetitions, f):
    times, result = [], None
    for _ in range(repetitions):
        started = time.perf_counter()
        result = f()
        times.append(time.perf_counter() - started)
    return times, result


def main():
    rows, build, repetitions = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    for keys in (1000, 1000000):
        df = table(rows, keys)
        times, sums = timed(repetitions, lambda: df.groupby("key")["value"].sum())
        print(json.dumps({"tool": "pandas", "operation": "group_by_sum", "rows": rows,
                          "keys": keys, "result_rows": len(sums),
                          "median": float(np.median(times)), "seconds": times}), flush=True)
    probe = table(rows, 1000000)
    b = np.arange(build, dtype=np.uint64)
    built = pd.DataFrame({"key": b, "value": b.astype(np.float64)})
    times, joined = timed(repetitions, lambda: probe.merge(built, on="key"))
    print(json.dumps({"tool": "pandas", "operation": "join", "rows": rows, "keys": build,
                      "result_rows": len(joined), "median": float(np.median(times)),
                      "seconds": times}), flush=True)


if __name__ == "__main__":
    main()
