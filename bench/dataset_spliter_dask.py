#!/usr/bin/env python3
"""The spliter experiment's peer: the same histogram and k-means iterations (bench/dataset_spliter.cpp:
the same points, bit for bit) in Dask, one task per block, under the threaded scheduler and a local
distributed cluster of one single-threaded worker per core, the blocks already in memory (scattered
to the workers). Prints one JSON line per (workload, scheduler, blocks per core).

usage: dataset_spliter_dask.py POINTS REPETITIONS BLOCKS_PER_CORE[,...] [CORES]
"""
import json
import os
import sys
import time

import numpy as np
import dask
from dask import delayed

DIMS, CLUSTERS, BINS, ITERATIONS = 8, 8, 16, 5
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def points_of(n):
    with np.errstate(over="ignore"):
        i = np.arange(n, dtype=np.uint64)
        s = i * GOLDEN
        p = np.empty((n, DIMS))
        for d in range(DIMS):
            s = s + GOLDEN
            z = s.copy()
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z = z ^ (z >> np.uint64(31))
            p[:, d] = (i % np.uint64(CLUSTERS)).astype(np.float64) + \
                (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    return p


def histogram(block):
    def b(v):
        return (np.clip(v / CLUSTERS, 0.0, 0.999999) * BINS).astype(np.int64)
    return np.bincount(b(block[:, 1]) * BINS + b(block[:, 0]), minlength=BINS * BINS)


def partial_sums(block, centers):
    # Distances by the expansion |x|^2 - 2 x.c + |c|^2 (a matrix product), sums by bincount: the
    # fastest NumPy form, not the one with (n, k, d) temporaries and np.add.at.
    d = (centers ** 2).sum(axis=1)[None, :] - 2.0 * block @ centers.T
    nearest = d.argmin(axis=1)
    k = len(centers)
    sums = np.stack([np.bincount(nearest, weights=block[:, j], minlength=k)
                     for j in range(block.shape[1])], axis=1)
    return sums, np.bincount(nearest, minlength=k)


def initial_centers(points):
    return points_of(7919 * (CLUSTERS - 1) + 4)[[i * 7919 + 3 for i in range(CLUSTERS)]]


def run_threads(blocks, centers0):
    started = time.perf_counter()
    total = delayed(sum)([delayed(histogram)(b) for b in blocks]).compute(scheduler="threads")
    h = time.perf_counter() - started
    started = time.perf_counter()
    centers = centers0
    for _ in range(ITERATIONS):
        parts = dask.compute(*[delayed(partial_sums)(b, centers) for b in blocks],
                             scheduler="threads")
        sums = sum(p[0] for p in parts)
        counts = sum(p[1] for p in parts)
        centers = sums / counts[:, None]
    return h, time.perf_counter() - started, total, centers


def run_distributed(client, blocks, centers0):
    futures = client.scatter(blocks, broadcast=False)
    started = time.perf_counter()
    total = client.submit(sum, client.map(histogram, futures)).result()
    h = time.perf_counter() - started
    started = time.perf_counter()
    centers = centers0
    for _ in range(ITERATIONS):
        parts = client.gather(client.map(partial_sums, futures, centers=centers, pure=False))
        sums = sum(p[0] for p in parts)
        counts = sum(p[1] for p in parts)
        centers = sums / counts[:, None]
    client.cancel(futures)
    return h, time.perf_counter() - started, total, centers


def main():
    n, repetitions = int(sys.argv[1]), int(sys.argv[2])
    per_core = [int(v) for v in sys.argv[3].split(",")]
    cores = int(sys.argv[4]) if len(sys.argv) > 4 else os.cpu_count()
    points = points_of(n)
    centers0 = initial_centers(points)
    from dask.distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=cores, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    client = Client(cluster)
    for bpc in per_core:
        blocks = np.array_split(points, bpc * cores)
        for scheduler in ("threads", "distributed"):
            h_times, k_times = [], []
            for _ in range(repetitions):
                if scheduler == "threads":
                    h, k, _, _ = run_threads(blocks, centers0)
                else:
                    h, k, _, _ = run_distributed(client, blocks, centers0)
                h_times.append(h)
                k_times.append(k)
            for workload, times in (("histogram", h_times), ("kmeans", k_times)):
                print(json.dumps({"workload": workload, "variant": "dask-" + scheduler,
                                  "blocks_per_core": bpc, "cores": cores, "points": n,
                                  "median": float(np.median(times)), "seconds": times}),
                      flush=True)
    client.close()
    cluster.close()


if __name__ == "__main__":
    main()
