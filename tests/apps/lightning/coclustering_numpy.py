#!/usr/bin/env python3
"""Runs lightning_coclustering and checks its labels against a plain NumPy implementation of
CGC's co-clustering (float64, the same start: row i in cluster i % k, column j in j % l).

Usage: coclustering_numpy.py WORKDIR K L ITERATIONS COMMAND... (the command runs the app; this
script adds --k, --l, --iterations, --save-matrix and --labels)."""
import os
import subprocess
import sys

import numpy as np


def coclustering(Z, k, l, iterations, epsilon=1e-8):
    m, n = Z.shape
    rows = np.arange(m) % k
    cols = np.arange(n) % l
    gavg = Z.mean()
    for _ in range(iterations):
        R = np.eye(k)[rows]
        C = np.eye(l)[cols]
        averages = (R.T @ Z @ C + gavg * epsilon) / (R.T @ np.ones((m, n)) @ C + epsilon)
        Y = averages + epsilon                                   # k x l
        d_rows = (C.sum(axis=0) @ Y.T)[None, :] - (Z @ C) @ np.log(Y).T    # m x k
        rows = np.argmin(d_rows, axis=1)
        R = np.eye(k)[rows]
        d_cols = (R.sum(axis=0) @ Y)[None, :] - (Z.T @ R) @ np.log(Y)      # n x l
        cols = np.argmin(d_cols, axis=1)
    return rows, cols


def labels(path):
    return np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.int64)[:, 1]


def main(argv):
    if len(argv) < 6:
        print(__doc__)
        return 2
    workdir, k, l, iterations = argv[1], int(argv[2]), int(argv[3]), int(argv[4])
    os.makedirs(workdir, exist_ok=True)
    matrix = os.path.join(workdir, "matrix.npy")
    prefix = os.path.join(workdir, "labels")
    command = argv[5:] + ["--k", str(k), "--l", str(l), "--iterations", str(iterations),
                          "--save-matrix", matrix, "--labels", prefix]
    run = subprocess.run(command, capture_output=True, text=True)
    print(run.stdout, end="")
    if run.returncode != 0:
        print(run.stderr, end="")
        print(f"check: FAILED (the app exited with {run.returncode})")
        return 1
    Z = np.load(matrix).astype(np.float64)
    rows, cols = coclustering(Z, k, l, iterations)
    got_rows, got_cols = labels(prefix + ".rows.csv"), labels(prefix + ".cols.csv")
    same_rows, same_cols = int((rows == got_rows).sum()), int((cols == got_cols).sum())
    passed = same_rows == len(rows) and same_cols == len(cols)
    print(f"numpy check: {'passed' if passed else 'FAILED'} (labels equal to NumPy's: rows "
          f"{same_rows} of {len(rows)}, columns {same_cols} of {len(cols)})")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
