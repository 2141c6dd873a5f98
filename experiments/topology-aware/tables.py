#!/usr/bin/env python3
"""Markdown tables of the topology-aware studies (fig5-1kib, fig7-1kib-background,
fig8-1mib-background; `bcastsim sweep` output): per routing (and background traffic), one row
per allocation size, one column per algorithm, the run time in us as median [min, max] over
the replicates (one value where there is one); --metric picks routers per packet, the
makespan in links or the messages over global or local links instead.

  /usr/bin/python3 experiments/topology-aware/tables.py results/fig5-1kib [--metric hops]
  /usr/bin/python3 experiments/topology-aware/tables.py results/fig2-analyze --metric makespan
"""
import argparse
import csv
import os
import statistics
import sys

ALGORITHMS = ["binomial", "forest", "glf", "llf"]
METRICS = {"time": ("collective.completion_ns", 1e-3, "{:.2f}"),
           "hops": ("packets.hops_avg", 1.0, "{:.2f}"),
           "makespan": ("collective.makespan_links", 1.0, "{:.0f}"),
           "global": ("traversals.global.messages", 1.0, "{:,.0f}"),
           "local": ("traversals.local.messages", 1.0, "{:,.0f}")}


def cell(values, fmt):
    if not values:
        return "-"
    if len(values) == 1:
        return fmt.format(values[0])
    return f"{fmt.format(statistics.median(values))} [{fmt.format(min(values))}, " \
           f"{fmt.format(max(values))}]"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("study", help="a study's output directory (holds results.csv)")
    ap.add_argument("--metric", choices=sorted(METRICS), default="time")
    a = ap.parse_args()
    path = os.path.join(a.study, "results.csv")
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        print(f"tables.py: {e}", file=sys.stderr)
        return 2
    column, scale, fmt = METRICS[a.metric]
    groups = {}
    pending = 0
    for r in rows:
        if r["status"] != "ok":
            pending += 1
            continue
        key = (r.get("routing.kind", ""), r.get("traffic.kind", ""))
        groups.setdefault(key, {}).setdefault(int(r["job.ranks"]), {}).setdefault(
            r["collective.algorithm"], []).append(float(r[column]) * scale)
    for (routing, traffic), by_size in groups.items():
        title = ", ".join(x for x in (f"routing.kind = {routing}" if routing else "",
                                      f"traffic.kind = {traffic}" if traffic else "") if x)
        print((f"{title}\n\n" if title else "") + "| job.ranks | " + " | ".join(ALGORITHMS) + " |\n|---:" +
              "|---:" * len(ALGORITHMS) + "|")
        for size in sorted(by_size):
            cells = [cell(by_size[size].get(alg, []), fmt) for alg in ALGORITHMS]
            print(f"| {size:,} | " + " | ".join(cells) + " |")
        print()
    if pending:
        print(f"({pending} points not run or failed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
