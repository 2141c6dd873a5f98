#!/usr/bin/env python3
"""Summarises a scripts/sweep.py CSV as Markdown: one row per (group, x), one column group
per series, each cell the median [min, max] of a metric over seeds (the paper's convention).

  scripts/summarize.py results.csv --x job.ranks --series collective.algorithm \
      --metric completion_ns [--group routing.kind] [--scale 0.001] [--digits 1]
"""
import argparse
import csv
import statistics
from collections import defaultdict


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--x", required=True)
    ap.add_argument("--series", required=True)
    ap.add_argument("--metric", required=True)
    ap.add_argument("--group", default=None)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--digits", type=int, default=0)
    ap.add_argument("--range", action="store_true", help="show [min, max] after the median")
    args = ap.parse_args()

    rows = [r for r in csv.DictReader(open(args.csv)) if r["exit"] == "0"]
    series = sorted({r[args.series] for r in rows}, key=lambda s: (s != "binomial", s))
    groups = sorted({r[args.group] for r in rows}) if args.group else [None]
    cells = defaultdict(list)
    for r in rows:
        key = (r[args.group] if args.group else None, int(r[args.x]), r[args.series])
        cells[key].append(float(r[args.metric]) * args.scale)

    def fmt(v):
        return f"{v:,.{args.digits}f}"

    for g in groups:
        if g is not None:
            print(f"\n{args.group} = {g}\n")
        print(f"| {args.x} | " + " | ".join(series) + " |")
        print("|---:|" + "---:|" * len(series))
        for x in sorted({k[1] for k in cells if k[0] == g}):
            out = []
            for s in series:
                v = cells.get((g, x, s))
                if not v:
                    out.append("")
                elif args.range:
                    out.append(f"{fmt(statistics.median(v))} [{fmt(min(v))}, {fmt(max(v))}]")
                else:
                    out.append(fmt(statistics.median(v)))
            print(f"| {x} | " + " | ".join(out) + " |")


if __name__ == "__main__":
    main()
