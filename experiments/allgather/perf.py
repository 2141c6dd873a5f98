#!/usr/bin/env python3
"""Collects each run's machine figures (result.json perf: wall, elaboration, peak RSS) from
results/<sweep>.csv.d/ into results/perf-<sweep>.csv, since scripts/sweep.py's CSV has the
wall time only and the result.json files are not committed.

  python3 experiments/allgather/perf.py
"""
import csv
import glob
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

for d in sorted(glob.glob(os.path.join(HERE, "results", "*.csv.d"))):
    name = os.path.basename(d)[: -len(".csv.d")]
    rows = []
    for point in sorted(os.listdir(d)):
        path = os.path.join(d, point, "result.json")
        if not os.path.exists(path):
            continue
        doc = json.load(open(path))
        perf, col = doc["perf"], doc["collectives"][0]
        rows.append({"collective.ranks": col["ranks"], "collective.algorithm": col["algorithm"],
                     "collective.bytes": col["bytes"], "wall_s": f"{perf['wall_s']:.2f}",
                     "elaborate_wall_s": f"{perf['elaborate_wall_s']:.2f}",
                     "simulate_wall_s": f"{perf['simulate_wall_s']:.2f}",
                     "packet_hops": perf["packet_hops"],
                     "peak_rss_mb": f"{perf['peak_rss_mb']:.0f}"})
    if not rows:  # a sweep still running
        continue
    rows.sort(key=lambda r: (r["collective.algorithm"], r["collective.bytes"]))
    out = os.path.join(HERE, "results", f"perf-{name}.csv")
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    total = sum(float(r["wall_s"]) for r in rows)
    peak = max(float(r["peak_rss_mb"]) for r in rows)
    print(f"{name}: {len(rows)} runs, {total:.0f} s wall in total, peak RSS {peak:.0f} MB -> {out}")
