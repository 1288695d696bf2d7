#!/usr/bin/env python3
"""Draws a phylogenetic tree in Newick as a PNG (a rectangular phylogram, no display needed).

Usage: strata_draw_tree.py TREE.nwk TREE.png
Run by `strata allpairs run phylogeny` after a run. Exit status 3 when matplotlib is missing.
"""
import sys


def parse_newick(text):
    """Returns the root: a node is [name, length, children]."""
    text = text.strip()
    pos = 0

    def skip_space_and_comments():
        nonlocal pos
        while pos < len(text):
            if text[pos].isspace():
                pos += 1
            elif text[pos] == "[":
                end = text.find("]", pos)
                if end < 0:
                    raise ValueError(f"unclosed comment at offset {pos}")
                pos = end + 1
            else:
                break

    def label():
        nonlocal pos
        skip_space_and_comments()
        if pos < len(text) and text[pos] == "'":
            pos += 1
            name = []
            while pos < len(text):
                if text[pos] == "'":
                    if pos + 1 < len(text) and text[pos + 1] == "'":
                        name.append("'")
                        pos += 2
                        continue
                    pos += 1
                    return "".join(name)
                name.append(text[pos])
                pos += 1
            raise ValueError("unclosed quoted name")
        start = pos
        while pos < len(text) and text[pos] not in "(),:;[" and not text[pos].isspace():
            pos += 1
        return text[start:pos]

    def node():
        nonlocal pos
        skip_space_and_comments()
        children = []
        if pos < len(text) and text[pos] == "(":
            pos += 1
            while True:
                children.append(node())
                skip_space_and_comments()
                if pos < len(text) and text[pos] == ",":
                    pos += 1
                    continue
                if pos < len(text) and text[pos] == ")":
                    pos += 1
                    break
                raise ValueError(f"expected ',' or ')' at offset {pos}")
        name = label()
        length = 0.0
        skip_space_and_comments()
        if pos < len(text) and text[pos] == ":":
            pos += 1
            skip_space_and_comments()
            start = pos
            while pos < len(text) and (text[pos].isdigit() or text[pos] in "+-.eE"):
                pos += 1
            length = float(text[start:pos])
        return [name, max(length, 0.0), children]

    root = node()
    skip_space_and_comments()
    if pos >= len(text) or text[pos] != ";":
        raise ValueError(f"expected ';' at offset {pos}")
    return root


def main():
    if len(sys.argv) != 3:
        print("usage: strata_draw_tree.py TREE.nwk TREE.png", file=sys.stderr)
        return 2
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (Debian: apt-get install python3-matplotlib)",
              file=sys.stderr)
        return 3
    with open(sys.argv[1], encoding="utf-8") as f:
        try:
            root = parse_newick(f.read())
        except ValueError as error:
            print(f"{sys.argv[1]}: malformed Newick: {error}", file=sys.stderr)
            return 1

    # Leaves one per row, top to bottom in the tree's order; x = distance from the root.
    leaves = []
    segments = []  # (x0, y0, x1, y1)

    def place(n, x_parent):
        x = x_parent + n[1]
        if not n[2]:
            y = len(leaves)
            leaves.append((x, y, n[0]))
        else:
            ys = [place(child, x) for child in n[2]]
            y = (min(ys) + max(ys)) / 2
            segments.append((x, min(ys), x, max(ys)))
        segments.append((x_parent, y, x, y))
        return y

    place(root, 0.0)
    depth = max(x for x, _, _ in leaves) or 1.0
    height = max(3.0, 0.28 * len(leaves) + 1.0)
    fig, ax = plt.subplots(figsize=(8, height), dpi=100)
    for x0, y0, x1, y1 in segments:
        ax.plot([x0, x1], [y0, y1], color="black", linewidth=1.2)
    for x, y, name in leaves:
        ax.text(x + depth * 0.01, y, name, va="center", fontsize=9)
    ax.set_ylim(len(leaves) - 0.5, -0.5)
    ax.set_xlim(0, depth * 1.25)
    ax.set_yticks([])
    for side in ("left", "right", "top"):
        ax.spines[side].set_visible(False)
    ax.set_xlabel("distance from the root (unrooted tree drawn from an arbitrary inner node)")
    ax.set_title(f"{len(leaves)} species, neighbor joining")
    fig.tight_layout()
    fig.savefig(sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
