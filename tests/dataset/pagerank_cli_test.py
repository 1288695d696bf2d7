#!/usr/bin/env python3
"""`strata dataset pagerank` over a real graph — the dependencies between the packages installed
on this machine (/var/lib/dpkg/status: an edge from each package to each package its Depends and
Pre-Depends name) — against networkx's pagerank of the same edges.

usage: pagerank_cli_test.py STRATA [RANKS]
"""
import csv
import os
import re
import subprocess
import sys
import tempfile

STATUS = "/var/lib/dpkg/status"


def dependency_edges():
    edges, package = set(), None
    with open(STATUS, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("Package: "):
                package = line.split(":", 1)[1].strip()
            elif package and (line.startswith("Depends: ") or line.startswith("Pre-Depends: ")):
                for alternative in re.split(r"[,|]", line.split(":", 1)[1]):
                    name = alternative.strip().split(" ")[0].split(":")[0]
                    if name and name != package:
                        edges.add((package, name))
    return sorted(edges)


def main():
    strata = sys.argv[1]
    ranks = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    try:
        import networkx
    except ImportError as missing:
        print(f"{missing}: install python3-networkx (scripts/install-deps.sh)")
        sys.exit(77)
    edges = dependency_edges()
    names = sorted({n for e in edges for n in e})
    number = {n: i for i, n in enumerate(names)}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "edges.csv")
        with open(path, "w") as f:
            f.write("src,dst\n")
            for a, b in edges:
                f.write(f"{number[a]},{number[b]}\n")
        base = [strata] if ranks == 1 else [strata, "launch", "-n", str(ranks), "--", strata]
        done = subprocess.run(base + ["dataset", "pagerank", path, "--output", tmp, "--quiet"],
                              capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"strata failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
        print(done.stdout)
        with open(os.path.join(tmp, "ranks.csv")) as f:
            ours = {int(r["node"]): float(r["rank"]) for r in csv.DictReader(f)}
    graph = networkx.DiGraph()
    graph.add_nodes_from(range(len(names)))
    graph.add_edges_from((number[a], number[b]) for a, b in edges)
    theirs = networkx.pagerank(graph, alpha=0.85, tol=1e-6, max_iter=100)
    print(f"{len(names)} packages, {len(edges)} dependencies")
    if set(ours) != set(theirs):
        sys.exit("the ranked nodes differ from networkx's")
    worst = max(abs(ours[v] - theirs[v]) / theirs[v] for v in theirs)
    top = sorted(theirs, key=theirs.get, reverse=True)[:5]
    print("top packages:", ", ".join(f"{names[v]} {ours[v]:.5f}" for v in top))
    print(f"largest relative difference from networkx: {worst:.3g}")
    if worst > 1e-9:
        sys.exit("the ranks differ from networkx's")


if __name__ == "__main__":
    main()
