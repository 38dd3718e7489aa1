"""The pilot's table in docs/digits.md ("Heads that see the shift"), each cell
seed 1 / seed 2: python3 results/heads-pilot/table.py results/heads-pilot/*/results.json"""
import json, sys

own = {"toplabel": "ECE", "classwise": "CwECE", "canonical": "CanECE"}
rows, order = {}, []
for path in sys.argv[1:]:
    for r in json.load(open(path))["Results"]:
        k = (r["Shift"], r["Method"])
        if k not in order:
            order.append(k)
        rows.setdefault(k, {})[r["Seed"]] = r


def rank(k):
    shift, m = k
    base = ["Uncal", "TS", "PseudoCal", "CE-finetune"]
    return (shift, base.index(m) if m in base else 4, m.split("-")[1] if m.startswith("ECL-") else "", m)


print("| target | row | ECE | CwECE | CanECE | own error − Uncal | own error − CE-ft | head on the target test split: P(correct) / ACC |")
print("|---|---|---|---|---|---|---|---|")
for shift, method in sorted(order, key=rank):
    seeds = rows[(shift, method)]
    cell = lambda f: " / ".join(f(seed, seeds[seed]) for seed in sorted(seeds))
    pct = lambda m: cell(lambda s, r: "%.2f" % (100 * r["Target"][m]))
    d1 = d2 = est = ""
    if method.startswith("ECL-"):
        m = own[method.split("-")[1]]
        d1 = cell(lambda s, r: "%+.2f" % (100 * (r["Target"][m] - rows[(shift, "Uncal")][s]["Target"][m])))
        d2 = cell(lambda s, r: "%+.2f" % (100 * (r["Target"][m] - rows[(shift, "CE-finetune")][s]["Target"][m])))

        def head(s, r):
            out = ""
            for a in r["Diag"]["Aux"]:
                if a["Domain"] == "target test" and len(a["Estimate"]) == 1:
                    out = "%.3f/%.3f" % (a["Estimate"][0], a["Actual"][0])
            if r["Diag"].get("Shift"):
                out += " ESS %.0f%%" % (100 * r["Diag"]["Shift"]["ess_fraction"])
            if r["Diag"].get("Temperature"):
                out += " T %.2f" % r["Diag"]["Temperature"]
            return out.strip() or "–"
        est = cell(head)
    print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (shift, method, pct("ECE"), pct("CwECE"), pct("CanECE"), d1, d2, est))
