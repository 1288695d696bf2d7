#!/usr/bin/env python3
"""`strata dataset kmeans` end to end on Fashion-MNIST (Debian's dataset-fashion-mnist).

usage: kmeans_cli_test.py STRATA MODE [RANKS]
  sklearn: the inertia and iterations equal scikit-learn's KMeans from the same initial centers
           (the first k points, Lloyd's algorithm, run until no label changes)
  resume:  a run killed with SIGKILL once it checkpointed, then resumed, writes byte-identical
           centers.csv and assignments.csv to a clean run's
"""
import gzip
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

IMAGES = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"
POINTS = 2000
K = 10


def command(strata, ranks, *args):
    base = [strata] if ranks == 1 else [strata, "launch", "-n", str(ranks), "--", strata]
    return base + ["dataset", "kmeans", IMAGES, "--k", str(K), "--points", str(POINTS), "--quiet",
                   *args]


def run(strata, ranks, *args):
    done = subprocess.run(command(strata, ranks, *args), capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"strata failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done.stdout


def report_value(report, name):
    match = re.search(rf"{name} +: ([0-9.e+]+)", report)
    if not match:
        sys.exit(f"no {name} in the report:\n{report}")
    return float(match.group(1))


def check_sklearn(strata, ranks):
    try:
        import numpy as np
        from sklearn.cluster import KMeans
    except ImportError as missing:
        print(f"{missing}: install python3-sklearn (scripts/install-deps.sh)")
        sys.exit(77)
    with gzip.open(IMAGES) as f:
        x = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784)[:POINTS]
    x = x.astype(np.float64)
    reference = KMeans(n_clusters=K, init=x[:K], n_init=1, max_iter=300, tol=0,
                       algorithm="lloyd").fit(x)
    with tempfile.TemporaryDirectory() as out:
        report = run(strata, ranks, "--iterations", "300", "--output", out)
        inertia = report_value(report, "inertia")
        iterations = report_value(report, "iterations")
        centers = np.loadtxt(os.path.join(out, "centers.csv"), delimiter=",", skiprows=1)[:, 1:]
    print(f"strata: inertia {inertia:.10g} after {iterations:g} iterations; scikit-learn: "
          f"{reference.inertia_:.10g} after {reference.n_iter_}")
    if abs(inertia - reference.inertia_) > 1e-7 * reference.inertia_:
        sys.exit("the inertia differs from scikit-learn's")
    if int(iterations) != reference.n_iter_:
        sys.exit("the iterations differ from scikit-learn's")
    # The same centers, in some order: each of ours is one of theirs.
    theirs = reference.cluster_centers_
    for c in centers:
        gap = np.abs(theirs - c).max(axis=1).min()
        if gap > 1e-6:
            sys.exit(f"a center lies {gap} from every one of scikit-learn's")


def read(path):
    with open(path, "rb") as f:
        return f.read()


def check_resume(strata, ranks):
    with tempfile.TemporaryDirectory() as tmp:
        clean = os.path.join(tmp, "clean")
        run(strata, ranks, "--iterations", "300", "--output", clean)
        checkpoint = os.path.join(tmp, "centers.checkpoint")
        resumed = os.path.join(tmp, "resumed")
        process = subprocess.Popen(
            command(strata, ranks, "--iterations", "300", "--output", resumed, "--checkpoint",
                    checkpoint), start_new_session=True, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        deadline = time.time() + 120
        while not os.path.exists(checkpoint) and process.poll() is None:
            if time.time() > deadline:
                sys.exit("no checkpoint appeared")
            time.sleep(0.01)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        if not os.path.exists(checkpoint):
            sys.exit("the run ended before it checkpointed: nothing was killed")
        report = run(strata, ranks, "--iterations", "300", "--output", resumed, "--checkpoint",
                     checkpoint, "--resume")
        print(report)
        for name in ("centers.csv", "assignments.csv"):
            if read(os.path.join(clean, name)) != read(os.path.join(resumed, name)):
                sys.exit(f"{name} of the resumed run differs from the clean run's")


def main():
    strata, mode = sys.argv[1], sys.argv[2]
    ranks = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    if not os.path.exists(IMAGES):
        print(f"{IMAGES} missing: install dataset-fashion-mnist")
        sys.exit(77)
    {"sklearn": check_sklearn, "resume": check_resume}[mode](strata, ranks)


if __name__ == "__main__":
    main()
