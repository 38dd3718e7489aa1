#!/usr/bin/env python3
"""Joins the Go benchmark output and peer.py's output into ratios.

    python3 ratios.py go.txt peer.txt

Prints, per benchmark present in both files, the Go and PyTorch times per
operation and the speed ratio PyTorch time / Go time (above 1: Go is
faster). Go's -GOMAXPROCS suffix is dropped from the names; where a file
holds a row more than once (several -count runs), the median is used.
"""
import re
import statistics
import sys

ROW = re.compile(r"^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op")


def read(path):
    rows = {}
    with open(path) as f:
        for line in f:
            m = ROW.match(line)
            if m:
                rows.setdefault(m.group(1), []).append(float(m.group(2)))
    return {k: statistics.median(v) for k, v in rows.items()}


def fmt(ns):
    return f"{ns / 1e6:.3f} ms" if ns >= 1e5 else f"{ns / 1e3:.1f} µs"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    go, peer = read(sys.argv[1]), read(sys.argv[2])
    print(f"| benchmark | Go | PyTorch | PyTorch/Go |\n|---|---|---|---|")
    for name, g in go.items():
        if name in peer:
            print(f"| {name.removeprefix('Benchmark')} | {fmt(g)} | {fmt(peer[name])} | {peer[name] / g:.2f}× |")


if __name__ == "__main__":
    main()
