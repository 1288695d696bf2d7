#!/usr/bin/env python3
"""Checks that every ```cpp block of a user guide is code the build compiles: each block's lines
(leading and trailing blanks stripped) must appear, consecutively, in one of the given sources.

Usage: snippets_compiled.py GUIDE.md SOURCE [SOURCE...]
"""
import re
import sys


def lines_of(text):
    return [line.strip() for line in text.splitlines() if line.strip()]


def contains(haystack, needle):
    if not needle:
        return True
    for start in range(len(haystack) - len(needle) + 1):
        if haystack[start:start + len(needle)] == needle:
            return True
    return False


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    guide = open(argv[1], encoding="utf-8").read()
    sources = {path: lines_of(open(path, encoding="utf-8").read()) for path in argv[2:]}
    blocks = re.findall(r"^```cpp\n(.*?)^```", guide, flags=re.S | re.M)
    if not blocks:
        print(f"{argv[1]}: no ```cpp blocks")
        return 1
    missing = 0
    for number, block in enumerate(blocks, 1):
        wanted = lines_of(block)
        if not any(contains(lines, wanted) for lines in sources.values()):
            missing += 1
            print(f"{argv[1]}: cpp block {number} is in none of {', '.join(sources)}:")
            print(block)
    print(f"{argv[1]}: {len(blocks) - missing} of {len(blocks)} cpp blocks are compiled code")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
