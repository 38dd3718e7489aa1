#!/usr/bin/env python3
"""Joins the Go benchmark output and peer.py's output into ratios.

    python3 ratios.py go.txt peer.txt

Prints, per benchmark present in both files, the Go and PyTorch times per
operation and the speed ratio PyTorch time / Go time (above 1: Go is
faster). Go's -GOMAXPROCS suffix is dropped from the names; where a file
holds a row more than once (several -count runs), the median is used. Where
peer.py timed a row in several forms (BenchmarkECLLoss/… and
BenchmarkECLLossReference/…, BenchmarkTrainStep/… and
BenchmarkTrainStepDefault/…, BenchmarkLargeStepChannelsLast/…,
BenchmarkAttentionComposed/…), the ratio is taken against the fastest, which
the last column names ("main": the row as named, peer.py's full-strength
form).
"""
import re
import statistics
import sys

ROW = re.compile(r"^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op")
FORMS = ("Reference", "Default", "ChannelsLast", "Composed")  # peer.py's other forms of a row


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
    print(f"| benchmark | Go | PyTorch | PyTorch/Go | PyTorch form |\n|---|---|---|---|---|")
    for name, g in go.items():
        head, _, rest = name.partition("/")
        forms = [(peer[n], f or "main") for f in ("",) + FORMS if (n := f"{head}{f}/{rest}") in peer]
        if forms:
            t, form = min(forms)
            print(f"| {name.removeprefix('Benchmark')} | {fmt(g)} | {fmt(t)} | {t / g:.2f}× | {form} |")


if __name__ == "__main__":
    main()
