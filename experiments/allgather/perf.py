#!/usr/bin/env python3
"""The machine figures of the allgather studies: from each `bcastsim sweep` study's
results/<study>/perf.csv (the columns perf.wall_s, perf.elaborate_wall_s,
perf.simulate_wall_s, perf.peak_rss_mb its study file names), per study and communicator:
runs, wall in total, the slowest run and the peak RSS, as a Markdown table (README.md, "Wall
time, memory, and sizes left out"). Each run's own perf.wall_s (from its result.json); the
sweep's wall_s column, the point's process as timed by the sweep, is printed beside it.

  python3 experiments/allgather/perf.py
"""
import csv
import glob
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ORDER = ["df72-algorithms", "df72-ragasa", "df1056-algorithms", "df1056-ragasa"]  # then others
SHORT = {"allgather-ring": "ring", "allgather-bruck": "Bruck", "allgather-rd": "rd",
         "allgather-mpich": "MPICH auto", "binomial": "roots-all binomial",
         "forest": "roots-all FOREST", "ragasa": "Ragasa"}


def size(b):
    for unit, n in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= n and b % n == 0:
            return f"{b // n} {unit}"
    return f"{b} B"


def main():
    print("| study | ranks | runs | wall, in total | process wall, in total | slowest run | peak RSS |")
    print("|---|---|---:|---:|---:|---|---:|")
    found = {os.path.basename(os.path.dirname(p)): p
             for p in glob.glob(os.path.join(HERE, "results", "*", "perf.csv"))}
    for study in [s for s in ORDER if s in found] + sorted(set(found) - set(ORDER)):
        path = found[study]
        rows = [r for r in csv.DictReader(open(path, newline="")) if r["status"] == "ok"]
        pending = sum(1 for r in csv.DictReader(open(path, newline="")) if r["status"] != "ok")
        for ranks in dict.fromkeys(r["collective.ranks"] for r in rows):  # in study order
            rs = [r for r in rows if r["collective.ranks"] == ranks]
            total = sum(float(r["perf.wall_s"]) for r in rs)
            process = sum(float(r["wall_s"]) for r in rs)
            slow = max(rs, key=lambda r: float(r["perf.wall_s"]))
            peak = max(float(r["perf.peak_rss_mb"]) for r in rs)
            what = f"{float(slow['perf.wall_s']):.1f} s ({SHORT[slow['collective.algorithm']]}, " \
                   f"{size(int(slow['collective.bytes']))})"
            print(f"| {study} | {ranks} | {len(rs)} | {total:.0f} s | {process:.0f} s | {what} "
                  f"| {peak:.0f} MB |")
        if pending:
            print(f"| {study} | | {pending} not ok (failed or pending) | | | | |")


if __name__ == "__main__":
    main()
