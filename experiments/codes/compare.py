#!/usr/bin/env python3
"""bcastsim's load-df72 study beside CODES's measurements: the README's tables and a plot.

    /usr/bin/python3 experiments/codes/compare.py [RESULTS_DIR [CODES_CSV]]

RESULTS_DIR defaults to experiments/codes/results (load-df72/ and, if there, load-df72-chunks/
and load-df72-booksim/ results.csv); CODES_CSV to ../shared/reference/peers/codes-df72-uniform.csv beside the
repository. Prints one markdown table per routing (accepted load and CODES's chunk latency,
each with its difference from CODES's, for both router models, BookSim's speedup 2.0 and, with
32-B packets, CODES's router) and writes RESULTS_DIR/load-df72/plots/vs-codes.png.
"""
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# CODES's two routings; ours beside each (adaptive: UGAL-L and CODES's rule per packet).
PAIRS = [("minimal", "minimal"), ("adaptive", "adaptive"), ("adaptive", "adaptive-codes")]
# Our variants: (key, column heading).
MODELS = [("output_queued", "output_queued"), ("input_queued", "input_queued"),
          ("speedup-2.0", "input_queued, speedup 2.0"), ("chunks", "output_queued, 32-B packets")]


def read(path):
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"compare.py: {e}")


def pct(ours, theirs):
    return f"{100.0 * (ours - theirs) / theirs:+.1f} %"


def table(codes, ours, codes_routing, our_routing):
    models = [m for m in MODELS if any(k[0] == m[0] and k[1] == our_routing for k in ours)]
    heads = [h for _, h in models]
    cols = ["offered", "CODES accepted"] + [x for h in heads for x in (h, "Δ")]
    cols += ["CODES latency ns"] + [x for h in heads for x in (h, "Δ")]
    cols += ["CODES hops"] + heads
    lines = [f"**{our_routing}** against CODES's {codes_routing}:", "",
             "| " + " | ".join(cols) + " |", "|---:" * len(cols) + "|"]
    for c in codes:
        if c["routing"] != codes_routing:
            continue
        load = float(c["load"])
        acc = float(c["finished_chunks"]) * 32 / (float(c["end_ns"]) * 72 * 5.25 * 1.073741824)
        lat = float(c["chunk_latency_ns"])
        cells = [f"{load:.1f}", f"{acc:.3f}"]
        got = {}
        for model, _ in models:
            row = ours.get((model, our_routing, load))
            got[model] = row
        for model, _ in models:
            r = got[model]
            if not r:
                cells += ["-", "-"]
                continue
            a = float(r["traffic.codes_accepted_load"])
            cells += [f"{a:.3f}", pct(a, acc)]
        cells.append(f"{lat:,.1f}")
        for model, _ in models:
            r = got[model]
            if not r:
                cells += ["-", "-"]
                continue
            v = float(r["traffic.codes_latency_ns"])
            cells += [f"{v:,.1f}", pct(v, lat)]
        cells.append(f"{float(c['hops']):.3f}")
        for model, _ in models:
            r = got[model]
            cells.append(f"{float(r['packets.hops_avg']):.3f}" if r else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def name(model):
    return dict(MODELS)[model]


def plot(codes, ours, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for routing in ("minimal", "adaptive"):
        rows = [c for c in codes if c["routing"] == routing]
        x = [float(c["load"]) for c in rows]
        acc = [float(c["finished_chunks"]) * 32 / (float(c["end_ns"]) * 72 * 5.25 * 1.073741824)
               for c in rows]
        axes[0].plot(x, [float(c["chunk_latency_ns"]) for c in rows], "k--" if routing ==
                     "minimal" else "k:", marker="x", label=f"CODES {routing}")
        axes[1].plot(x, acc, "k--" if routing == "minimal" else "k:", marker="x",
                     label=f"CODES {routing}")
    # The preset's curves (CODES's router; per-chunk adaptive), and bcastsim's own router.
    lines = [("output_queued", "minimal", "-", "tab:blue"),
             ("chunks", "adaptive-codes", "-", "tab:green"),
             ("speedup-2.0", "minimal", ":", "tab:red"),
             ("input_queued", "minimal", "-.", "tab:blue"),
             ("input_queued", "adaptive", "-.", "tab:orange")]
    for model, routing, style, colour in lines:
        pts = sorted((load, r) for (m, rt, load), r in ours.items() if m == model and rt == routing)
        if not pts:
            continue
        x = [p[0] for p in pts]
        label = f"{name(model)} {routing}"
        axes[0].plot(x, [float(p[1]["traffic.codes_latency_ns"]) for p in pts], style,
                     color=colour, marker="o", label=label)
        axes[1].plot(x, [float(p[1]["traffic.codes_accepted_load"]) for p in pts], style,
                     color=colour, marker="o", label=label)
    axes[0].set_yscale("log")
    axes[0].set_ylabel("average chunk latency, ns (CODES's definition)")
    axes[1].set_ylabel("accepted load (CODES's definition)")
    for ax in axes:
        ax.set_xlabel("offered load")
        ax.grid(True, alpha=0.3)
    axes[1].legend(fontsize=7)
    fig.suptitle("72-terminal dragonfly, uniform traffic: bcastsim (CODES-like preset) and CODES")
    fig.tight_layout()
    tmp = out + ".part.png"
    fig.savefig(tmp, dpi=110)
    os.replace(tmp, out)


def main():
    results = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "results")
    codes_csv = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        ROOT, "..", "shared", "reference", "peers", "codes-df72-uniform.csv")
    codes = [c for c in read(codes_csv) if c["net"] == "72"]
    ours = {}
    for r in read(os.path.join(results, "load-df72", "results.csv")):
        if r["status"] == "ok":
            ours[(r["router.model"], r["routing.kind"], float(r["traffic.load"]))] = r
    chunks = os.path.join(results, "load-df72-chunks", "results.csv")
    if os.path.exists(chunks):
        for r in read(chunks):
            if r["status"] == "ok":
                ours[("chunks", r["routing.kind"], float(r["traffic.load"]))] = r
    booksim = os.path.join(results, "load-df72-booksim", "results.csv")
    if os.path.exists(booksim):
        for r in read(booksim):
            if r["status"] == "ok" and float(r["router.internal_speedup"]) == 2.0:
                ours[("speedup-2.0", r["routing.kind"], float(r["traffic.load"]))] = r
    for codes_routing, our_routing in PAIRS:
        print(table(codes, ours, codes_routing, our_routing))
        print()
    plots = os.path.join(results, "load-df72", "plots")
    os.makedirs(plots, exist_ok=True)
    plot(codes, ours, os.path.join(plots, "vs-codes.png"))


if __name__ == "__main__":
    main()
