#!/usr/bin/env python3
"""Plots the allgather experiment (experiments/allgather/README.md) from the `bcastsim sweep`
studies' results/NET-algorithms/results.csv and results/NET-ragasa/results.csv.

  /usr/bin/python3 experiments/allgather/plot.py     # writes experiments/allgather/allgather.png

Top row: completion time against bytes per rank (log-log), one panel per network; solid
lines and filled markers on the largest power-of-two communicator (64 / 1,024 ranks), dashed
lines and open markers on every rank (72 / 1,056); black crosses mark what allgather-mpich
measured. Bottom row: each algorithm's time over the fastest algorithm's at that size, on the
power-of-two communicator (1 = fastest). Needs matplotlib (Debian: python3-matplotlib).
"""
import csv
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
STYLE = {  # algorithm: (label, colour, marker)
    "allgather-ring": ("ring", "tab:blue", "o"),
    "allgather-bruck": ("Bruck", "tab:orange", "s"),
    "allgather-rd": ("recursive doubling", "tab:green", "^"),
    "binomial": ("binomial, roots all", "tab:red", "v"),
    "forest": ("FOREST, roots all", "tab:purple", "D"),
    "ragasa": ("Ragasa (nodes relay), roots all", "tab:cyan", "P"),
}
LW = {"ragasa": 2.4}  # drawn thicker: it runs close to the ring and binomial
NETS = [("df72", "72-terminal Df(2,4,2)", "0-63", 64, 72),
        ("df1056", "1,056-terminal Df(4,8,4), 8 B to 4 KiB (Ragasa to 512 B)", "0-1023", 1024, 1056)]
# The x ticks: the main sizes (the 72-terminal studies add 128 B to 2 KiB in between).
TICKS = (8, 64, 512, 4096, 32768, 262144, 1048576)


def load(net, ranks):
    """{algorithm: [(bytes per rank, completion us)]} of collective.ranks = RANKS in
    results/NET-algorithms/results.csv and results/NET-ragasa/results.csv (points that ran)."""
    data = {}
    for study in ("algorithms", "ragasa"):
        path = os.path.join(HERE, "results", f"{net}-{study}", "results.csv")
        if not os.path.exists(path):
            continue
        for r in csv.DictReader(open(path, newline="")):
            if r["status"] == "ok" and r["collective.ranks"] == ranks:
                data.setdefault(r["collective.algorithm"], []).append(
                    (int(r["collective.bytes"]), float(r["collective.completion_ns"]) / 1000))
    return {a: sorted(v) for a, v in data.items()}


def size_label(b):
    return f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB" if b >= 1024 else f"{b} B"


def main():
    fig, axes = plt.subplots(2, 2, figsize=(13, 10.5), gridspec_kw={"height_ratios": [2.2, 1.3]})
    for col, (net, title, pow2_ranks, pow2, every) in enumerate(NETS):
        ax, rax = axes[0][col], axes[1][col]
        pw, al = load(net, pow2_ranks), load(net, "all")
        sizes = sorted({b for d in (pw, al) for v in d.values() for b, _ in v if b in TICKS})
        if not sizes:
            for a in (ax, rax):
                a.text(0.5, 0.5, f"{title}: no results yet", ha="center", transform=a.transAxes)
            continue
        for algo, (label, colour, marker) in STYLE.items():
            if algo in pw:
                xs, ys = zip(*pw[algo])
                ax.plot(xs, ys, "-", color=colour, marker=marker, lw=LW.get(algo, 1.5),
                        label=f"{label}, {pow2} ranks")
            if algo in al:
                xs, ys = zip(*al[algo])
                ax.plot(xs, ys, "--", color=colour, marker=marker, mfc="white",
                        lw=LW.get(algo, 1.5), label=f"{label}, {every} ranks")
        for d, lab in ((pw, f"{pow2}"), (al, f"{every}")):
            if "allgather-mpich" in d:
                xs, ys = zip(*d["allgather-mpich"])
                ax.plot(xs, ys, "x", color="black", ms=9, mew=1.3,
                        label="MPICH auto (measured)" if lab == f"{pow2}" else None)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(sizes, [size_label(b) for b in sizes])
        ax.set_xlim(sizes[0] / 1.6, sizes[-1] * 1.6)
        ax.set_title(f"All-to-all broadcast, {title}")
        ax.set_xlabel("bytes per rank")
        ax.set_ylabel("completion time (µs)")
        ax.grid(True, which="major", alpha=0.35)
        ax.grid(True, which="minor", axis="y", alpha=0.12)
        ax.legend(fontsize=7.5, ncol=2, loc="upper left")
        # Relative to the fastest, power-of-two communicator.
        best = {}
        for algo, v in pw.items():
            for b, t in v:
                best[b] = min(best.get(b, t), t)
        for algo, (label, colour, marker) in STYLE.items():
            if algo in pw:
                xs = [b for b, _ in pw[algo]]
                ys = [t / best[b] for b, t in pw[algo]]
                rax.plot(xs, ys, "-", color=colour, marker=marker, lw=LW.get(algo, 1.5),
                         label=label)
        rax.set_xscale("log", base=2)
        rax.set_yscale("log")
        rax.set_xticks(sizes, [size_label(b) for b in sizes])
        rax.set_xlim(sizes[0] / 1.6, sizes[-1] * 1.6)
        rax.set_ylabel(f"time / fastest ({pow2} ranks)")
        rax.set_xlabel("bytes per rank")
        rax.grid(True, which="both", alpha=0.3)
        rax.axhline(1, color="grey", lw=0.8)
        ticks = [1, 1.5, 2, 3, 5, 10, 20, 50]
        rax.set_yticks(ticks, [f"{t:g}" for t in ticks])
        rax.minorticks_off()
        rax.set_title(f"relative to the fastest algorithm at each size, {pow2} ranks", fontsize=10)
    fig.tight_layout()
    out = os.path.join(HERE, "allgather.png")
    fig.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main()
