#!/usr/bin/env python3
"""Runs a scenario over a grid of --set values with the real bcastsim and writes one CSV row
per run (the grid's values and the result's key figures). Python standard library only.

  scripts/sweep.py SCENARIO --bin build/release/bcastsim --out results.csv \
      --grid job.ranks=128,1024 --grid collective.algorithm=binomial,forest \
      --seeds 1,2,3 [--command run|analyze] [--jobs 2]

Seeds are passed as --seed; each run's result.json is kept under OUT.d/.
"""
import argparse
import csv
import itertools
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

FIELDS = [
    ("completion_ns", ("collective", "completion_ns")),
    ("makespan_links", ("collective", "makespan_links")),
    ("messages", ("collective", "messages")),
    ("hops_avg", ("packets", "hops_avg"), ("hops_avg",)),  # analyze: per message
    ("latency_ns_avg", ("packets", "latency_ns_avg")),
    ("latency_ns_max", ("packets", "latency_ns_max")),
    ("terminal_messages", ("traversals", "terminal", "messages")),
    ("local_messages", ("traversals", "local", "messages")),
    ("global_messages", ("traversals", "global", "messages")),
    ("terminal_packets", ("traversals", "terminal", "packets")),
    ("local_packets", ("traversals", "local", "packets")),
    ("global_packets", ("traversals", "global", "packets")),
    ("packet_hops", ("perf", "packet_hops")),
    ("wall_s", ("perf", "wall_s")),
    ("sim_time_ns", ("sim_time_ns",)),
    # collective.algorithm: ragasa (empty for the other algorithms)
    ("setup_ns", ("ragasa", "setup", "setup_ns")),
    ("mini_packets", ("ragasa", "setup", "mini_packets")),
    ("memory_stall_ns", ("ragasa", "units", "memory_stall_ns")),
    ("rx_hol_blocked_ns", ("ragasa", "units", "rx_hol_blocked_ns")),
    ("ri_blocked_ns", ("ragasa", "units", "ri_blocked_ns")),
    ("working_memory_peak_bytes", ("ragasa", "units", "working_memory_peak_bytes")),
    ("rx_queue_peak_packets", ("ragasa", "units", "rx_queue_peak_packets")),
    ("bytes_replicated", ("ragasa", "units", "bytes_replicated")),
    ("unit_packets_out", ("ragasa", "units", "packets_out")),
    # collective.algorithm: tofu2-* (the first Tofu2 collective's means over its repetitions)
    ("tofu2_init_ns", ("tofu2", "init_ns")),
    ("tofu2_start_ns", ("tofu2", "start_ns")),
    ("tofu2_wait_ns", ("tofu2", "wait_ns")),
    ("tofu2_completion_ns", ("tofu2", "completion_ns")),
    ("tofu2_bandwidth_gb_per_s", ("tofu2", "bandwidth_gb_per_s")),
    ("tofu2_enqueue_refused", ("tofu2", "enqueue_refused")),
    # collective.algorithm: sfata, rfata, a2a (the paper's metrics, Zhuang et al. 5.2)
    ("galaxy_avg_time_ns", ("galaxy", "avg_time_ns")),
    ("galaxy_max_time_ns", ("galaxy", "max_time_ns")),
    ("galaxy_min_time_ns", ("galaxy", "min_time_ns")),
    ("galaxy_avg_redundant_packets", ("galaxy", "avg_redundant_packets")),
    ("galaxy_router_time_ns", ("galaxy", "router_time_ns")),
    ("galaxy_avg_channel_utilization", ("galaxy", "avg_channel_utilization")),
    ("galaxy_success_rate", ("galaxy", "success_rate")),
    ("galaxy_failure_rate", ("galaxy", "failure_rate")),
    ("galaxy_root_supernode", ("galaxy", "root_supernode")),
]


def dig(doc, path):
    for key in path:
        if not isinstance(doc, dict) or key not in doc:
            return ""
        doc = doc[key]
    return doc


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--grid", action="append", default=[], help="key=v1,v2,... (crossed)")
    ap.add_argument("--set", action="append", default=[], help="fixed key=value")
    ap.add_argument("--seeds", default="1")
    ap.add_argument("--command", default="run", choices=["run", "analyze"])
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()

    keys, values = [], []
    for g in args.grid:
        k, _, v = g.partition("=")
        keys.append(k)
        values.append(v.split(","))
    seeds = args.seeds.split(",")
    points = [(combo, seed) for combo in itertools.product(*values) for seed in seeds]
    outdir = args.out + ".d"
    os.makedirs(outdir, exist_ok=True)

    def run(point):
        combo, seed = point
        tag = "_".join(f"{k.split('.')[-1]}-{v}" for k, v in zip(keys, combo)) + f"_seed-{seed}"
        d = os.path.join(outdir, tag)
        cmd = [args.bin, args.command, args.scenario, "-q", "--seed", seed, "--out", d]
        for s in args.set:
            cmd += ["--set", s]
        for k, v in zip(keys, combo):
            cmd += ["--set", f"{k}={v}"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        row = dict(zip(keys, combo), seed=seed, exit=proc.returncode)
        name = "result.json" if args.command == "run" else "analyze.json"
        if proc.returncode == 0:
            doc = json.load(open(os.path.join(d, name)))
            for field, *paths in FIELDS:
                row[field] = next((v for v in (dig(doc, p) for p in paths) if v != ""), "")
        else:
            row["error"] = (proc.stderr or proc.stdout).strip().splitlines()[0:1]
        print(f"{tag}: exit {proc.returncode}", file=sys.stderr, flush=True)
        return row

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        rows = list(pool.map(run, points))
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys + ["seed", "exit"] + [f[0] for f in FIELDS] + ["error"])
        w.writeheader()
        for r in rows:
            w.writerow(r)
    failed = sum(1 for r in rows if r["exit"] != 0)
    print(f"{len(rows)} runs, {failed} failed -> {args.out}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
