#!/usr/bin/env python3
"""Times the plain NumPy implementation of CGC's co-clustering (the one the tests check labels
against, tests/apps/lightning/coclustering_numpy.py) on a matrix saved by lightning_coclustering
--save-matrix, and prints "numpy: S s per iteration" and whether its labels equal the app's.

Usage: lightning_coclustering_numpy.py MATRIX.npy LABELS_PREFIX K L ITERATIONS"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "apps",
                                "lightning"))
from coclustering_numpy import coclustering, labels  # noqa: E402


def main(argv):
    matrix, prefix, k, l, iterations = argv[1], argv[2], int(argv[3]), int(argv[4]), int(argv[5])
    Z = np.load(matrix).astype(np.float64)  # CGC works in float64
    start = time.perf_counter()
    rows, cols = coclustering(Z, k, l, iterations)
    seconds = time.perf_counter() - start
    same = (rows == labels(prefix + ".rows.csv")).all() and (cols == labels(prefix + ".cols.csv")).all()
    print(f"numpy: {seconds / iterations:.6f} s per iteration, labels "
          f"{'equal' if same else 'DIFFERENT'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
