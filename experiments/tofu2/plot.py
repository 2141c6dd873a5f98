#!/usr/bin/env python3
"""Plots the Tofu2 experiment (experiments/tofu2/README.md) from its sweeps' CSVs,
results/<study>/results.csv (the studies sweep-<study>.yaml, README.md has the commands).

  /usr/bin/python3 experiments/tofu2/plot.py     # writes experiments/tofu2/tofu2.png

(a) completion time of one repetition against message size, 12 processes: each algorithm
offloaded (solid) and host-progressed (dashed), at its best segment count of 1, 4, 16, 64
for that size; (b) the same as effective bandwidth; (c) MPI_Bcast_init and MPI_Start against the
segment count (they do not depend on the size), with the paper's ranges shaded; (d) the overlap curve: total
time of one 128 MiB Trinaryx3 broadcast against the computation put between its start and
its wait. Also prints the tables of the README. Needs matplotlib (python3-matplotlib).
"""
import csv
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ALGS = [("tofu2-trinaryx3", "Trinaryx3", "tab:red"), ("tofu2-trinary", "Trinary", "tab:blue"),
        ("tofu2-pipeline", "single path", "tab:green")]
SEGMENTS = ["1", "4", "16", "64"]


def csv_path(name):
    """The CSV of the study sweep-<name>.yaml, run with --out experiments/tofu2/results/<name>."""
    return os.path.join(HERE, "results", name, "results.csv")


def load(name):
    with open(csv_path(name)) as f:
        rows = list(csv.DictReader(f))
    bad = [r for r in rows if r["status"] != "ok"]
    if bad:
        raise SystemExit(f"{csv_path(name)}: {len(bad)} points not ok, first: {bad[0]}")
    return rows


def best(rows, alg, mode):
    """size -> (completion_ns, segments, row) at the fastest segment count."""
    out = {}
    for r in rows:
        if r["collective.algorithm"] != alg or r["tofu2.mode"] != mode:
            continue
        b, t = int(r["collective.bytes"]), float(r["tofu2.completion_ns"])
        if b not in out or t < out[b][0]:
            out[b] = (t, r["tofu2.segments"], r)
    return out


def size_label(b):
    return f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB"


def main():
    unit = load("unit")
    overlap = load("overlap")
    fig, ax = plt.subplots(2, 2, figsize=(13, 9.5))
    for alg, label, colour in ALGS:
        for mode, style in (("offload", "-"), ("host", "--")):
            pts = sorted(best(unit, alg, mode).items())
            xs = [b for b, _ in pts]
            ax[0][0].plot(xs, [v[0] / 1e3 for _, v in pts], style, color=colour, marker="o",
                          ms=3, label=f"{label}, {mode}")
            ax[0][1].plot(xs, [b / v[0] for b, v in pts], style, color=colour, marker="o",
                          ms=3, label=f"{label}, {mode}")
    ax[0][0].set(xscale="log", yscale="log", xlabel="message size (bytes)",
                 ylabel="completion of one repetition (µs)",
                 title="(a) one broadcast, 12 processes (best of 1/4/16/64 segments)")
    ax[0][1].set(xscale="log", xlabel="message size (bytes)",
                 ylabel="effective bandwidth (GB/s)", title="(b) effective bandwidth")
    ax[0][1].axhline(12.5, color="grey", lw=0.8, ls=":")
    ax[0][1].text(5e3, 12.0, "one Tofu2 link, 12.5 GB/s", color="grey", fontsize=8)
    for a in (ax[0][0], ax[0][1]):
        a.legend(fontsize=7)
        a.grid(True, which="both", alpha=0.3)
    cx = ax[1][0]
    # Neither call depends on the size (the model's costs are per call and per descriptor):
    # plotted against the segments, at 1 MiB, for each algorithm.
    for alg, label, colour in ALGS:
        rs = sorted((int(r["tofu2.segments"]), r) for r in unit
                    if r["collective.algorithm"] == alg and r["tofu2.mode"] == "offload"
                    and r["collective.bytes"] == "1048576")
        xs = [s for s, _ in rs]
        cx.plot(xs, [float(r["tofu2.init_ns"]) / 1e3 for _, r in rs], "-s", ms=4, color=colour,
                label=f"MPI_Bcast_init, {label}")
        cx.plot(xs, [float(r["tofu2.start_ns"]) / 1e3 for _, r in rs], ":^", ms=4,
                color=colour, label=f"MPI_Start, {label}")
    cx.axhspan(60, 251, color="tab:red", alpha=0.08)
    cx.axhspan(2, 8, color="tab:blue", alpha=0.08)
    cx.text(1.1, 180, "paper: MPI_Bcast_init 60-251 µs", fontsize=8, color="tab:red")
    cx.text(1.1, 5.5, "paper: MPI_Start 2-8 µs", fontsize=8, color="tab:blue")
    cx.set(xscale="log", yscale="log", xlabel="segments per fragment", ylabel="call time (µs)",
           title="(c) offloaded calls at the root (any size; 1 MiB shown)")
    cx.set_xticks([1, 4, 16, 64], ["1", "4", "16", "64"])
    cx.legend(fontsize=7, ncol=2)
    cx.grid(True, which="both", alpha=0.3)
    dx = ax[1][1]
    for mode, colour in (("offload", "tab:red"), ("host", "tab:grey")):
        sim = sorted((int(r["collective.compute_ns"]), r) for r in overlap
                     if r["tofu2.mode"] == mode)
        dx.plot([c / 1e3 for c, _ in sim], [total_ns(r) / 1e3 for _, r in sim], "-o", ms=3,
                color=colour, label=f"Trinaryx3 {mode}: start, compute, wait")
    xs = [int(r["collective.compute_ns"]) / 1e3 for r in overlap]
    dx.plot([0, max(xs)], [0, max(xs)], ":", color="black", lw=0.8, label="the computation alone")
    dx.set(xlabel="computation between start and wait (µs)", ylabel="total time (µs)",
           title="(d) overlap, 128 MiB, 16 segments, 12 processes")
    dx.legend(fontsize=7)
    dx.grid(True, alpha=0.3)
    fig.tight_layout()
    out = os.path.join(HERE, "tofu2.png")
    fig.savefig(out, dpi=110)
    print("wrote", out)
    tables(unit, overlap)
    if os.path.exists(csv_path("t768-segments")):
        t768_table()


def t768_table():
    """768 nodes: one repetition's completion (offload: from MPI_Start) and init, µs."""
    print("\n768 nodes: algorithm | mode | segments | 64 KiB | 1 MiB | 16 MiB | init")
    rows = load("t768")
    cells = {}
    for r in rows + load("t768-segments"):
        seg = r.get("tofu2.segments", "16")
        key = (r["collective.algorithm"], r["tofu2.mode"], seg)
        cells.setdefault(key, {})[int(r.get("collective.bytes", "16777216"))] = r
    for (alg, mode, seg), by in cells.items():
        t = [f"{float(by[b]['tofu2.completion_ns']) / 1e3:,.1f}" if b in by else ""
             for b in (65536, 1048576, 16777216)]
        init = next(iter(by.values()))["tofu2.init_ns"]
        print(f"{alg} | {mode} | {seg} | " + " | ".join(t) + f" | {float(init) / 1e3:,.1f}")
    for r in load("t768-host"):
        print(f"{r['collective.algorithm']} | host NICs | {int(r['collective.bytes'])} | "
              f"{float(r['collective.completion_ns']) / 1e3:,.1f}")


def total_ns(row):
    """Simulated time of a one-repetition run: every rank's start, compute and wait."""
    return float(row["sim_time_ns"])


def tables(unit, overlap):
    print("\nsize | " + " | ".join(f"{l} offload / host (µs, segments)" for _, l, _ in ALGS))
    sizes = sorted({int(r["collective.bytes"]) for r in unit})
    bests = {(a, m): best(unit, a, m) for a, _, _ in ALGS for m in ("offload", "host")}
    for b in sizes:
        cells = []
        for a, _, _ in ALGS:
            o, h = bests[(a, "offload")][b], bests[(a, "host")][b]
            cells.append(f"{o[0] / 1e3:.1f} ({o[1]}) / {h[0] / 1e3:.1f} ({h[1]})")
        print(f"{size_label(b)} | " + " | ".join(cells))
    print("\nTrinaryx3 offload: size | init µs (1/4/16/64 seg) | start µs | wait µs | GB/s")
    for b in sizes:
        rs = {r["tofu2.segments"]: r for r in unit if r["collective.algorithm"] == "tofu2-trinaryx3"
              and r["tofu2.mode"] == "offload" and int(r["collective.bytes"]) == b}
        f = lambda k, d=1e3: "/".join(f"{float(rs[s][k]) / d:.1f}" for s in SEGMENTS)
        print(f"{size_label(b)} | {f('tofu2.init_ns')} | {f('tofu2.start_ns')} | "
              f"{f('tofu2.wait_ns')} | {f('tofu2.bandwidth_gb_per_s', 1)}")
    print("\noverlap: mode compute_us total_us wait_us")
    for r in sorted(overlap, key=lambda r: (r["tofu2.mode"], int(r["collective.compute_ns"]))):
        print(r["tofu2.mode"], int(r["collective.compute_ns"]) / 1e3, f"{total_ns(r) / 1e3:.1f}",
              f"{float(r['tofu2.wait_ns']) / 1e3:.1f}" if r["tofu2.wait_ns"] else "")


if __name__ == "__main__":
    main()
