#!/usr/bin/env python3
"""Markdown tables of the latency-vs-load studies (load-*.yaml here; `bcastsim sweep`
output): one row per offered load, one column per routing, each cell accepted load / average
packet latency in ns (creation to delivery), then the highest accepted load per routing.

  /usr/bin/python3 experiments/traffic/tables.py [experiments/traffic/results/load-df72-uniform ...]
"""
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
STUDIES = ["load-df72-uniform", "load-df72-adversarial", "load-df1056-uniform",
           "load-df1056-adversarial"]


def table(study_dir):
    with open(os.path.join(study_dir, "results.csv"), newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["status"] == "ok"]
    routings = list(dict.fromkeys(r["routing.kind"] for r in rows))
    loads = sorted({float(r["traffic.load"]) for r in rows})
    cells = {(r["routing.kind"], float(r["traffic.load"])): r for r in rows}
    out = [f"**{os.path.basename(study_dir)}**", "",
           "| offered | " + " | ".join(routings) + " |", "|---:" * (len(routings) + 1) + "|"]
    for load in loads:
        line = [f"{load:.2f}"]
        for rt in routings:
            r = cells.get((rt, load))
            line.append(f"{float(r['traffic.accepted_load']):.3f} / "
                        f"{float(r['traffic.latency_ns.avg']):,.0f}" if r else "-")
        out.append("| " + " | ".join(line) + " |")
    best = [f"{rt} {max(float(r['traffic.accepted_load']) for (k, _), r in cells.items() if k == rt):.3f}"
            for rt in routings]
    out += ["", "Highest accepted load: " + ", ".join(best) + "."]
    return "\n".join(out)


def main():
    dirs = sys.argv[1:] or [os.path.join(HERE, "results", s) for s in STUDIES]
    try:
        print("\n\n".join(table(d) for d in dirs))
    except (OSError, KeyError) as e:
        print(f"tables.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
