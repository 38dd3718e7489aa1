#!/usr/bin/env python3
"""Summarises gpu.sh's ncu part: GPU time per kernel name over a range of
launches of an ncu --csv file (one metric, gpu__time_duration.sum).

    python3 ncu.py ncu-TrainStep-resnet20.csv [FIRST [COUNT]]

FIRST and COUNT select launches (default: all), e.g. one training step.
"""
import collections
import csv
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
    head = rows[0]
    name, value = head.index("Kernel Name"), head.index("Metric Value")
    launches = [(r[name].split("(")[0], float(r[value].replace(",", ""))) for r in rows[1:]]
    first = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    count = int(sys.argv[3]) if len(sys.argv) > 3 else len(launches) - first
    sel = launches[first:first + count]
    total, calls = collections.defaultdict(float), collections.Counter()
    for k, ns in sel:
        total[k] += ns
        calls[k] += 1
    s = sum(total.values())
    print(f"{len(sel)} launches, {s / 1e6:.3f} ms of GPU time")
    print(f"| kernel | launches | µs | share |\n|---|---|---|---|")
    for k, ns in sorted(total.items(), key=lambda kv: -kv[1]):
        print(f"| {k} | {calls[k]} | {ns / 1e3:.1f} | {ns / s * 100:.1f}% |")


if __name__ == "__main__":
    main()
