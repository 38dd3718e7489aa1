"""Markdown table of the ECL rows of several `ecl digits` runs, one row per run.

usage: python3 scripts/ablation_table.py LABEL=DIR ...

Each cell is the paradigm's own target error (top-label ECE, class-wise
CwECE, canonical CanECE), mean ± std over seeds in %, then the seeds on
which it is below Uncal's and the mean change in points, and the same
against CE-finetune, read from DIR/results.json.
"""
import json
import sys

OWN = {"ECL-toplabel": "ECE", "ECL-classwise": "CwECE", "ECL-canonical": "CanECE"}

print("| setting | top-label ECE | class-wise CwECE | canonical CanECE |")
print("|---|---|---|---|")
for arg in sys.argv[1:]:
    label, path = arg.rsplit("=", 1)
    with open(path + "/results.json") as f:
        rows = {s["Method"]: s for s in json.load(f)["Summaries"]}
    cells = []
    for method, metric in OWN.items():
        s = rows.get(method)
        if s is None:
            cells.append("")
            continue
        t, n = s["Target"][metric], s["Runs"]
        cells.append("%.2f ± %.2f (%d/%d %+.2f; %d/%d %+.2f)" % (
            100 * t["Mean"], 100 * t["Std"], s["Wins"], n, 100 * s["Delta"], s["WinsCtl"], n, 100 * s["DeltaCtl"]))
    print("| %s | %s |" % (label, " | ".join(cells)))
