#!/usr/bin/env python3
"""Plots the Ragasa experiment (experiments/ragasa/README.md) from its `bcastsim sweep` results.

Reads RESULTS/<study>/results.csv for the studies experiments/ragasa/{sizes,send-queue,buffers,
roots,seeds}.yaml (columns named by result.json's dotted paths, e.g. collective.completion_ns).

  scripts/plot_ragasa.py [--results experiments/ragasa/results] [--out experiments/ragasa]
  scripts/plot_ragasa.py --tables     # prints the README's Markdown tables instead

Writes into --out:
  sizes.png    completion time vs message size (log-log) for binomial and ragasa (unit port
               5.25 .. 42 GiB/s, and descriptor threshold 512 B), and the speedup over binomial
  buffers.png  the 16 KiB buffer sweep: completion, memory stall and RI-blocked time vs Working
               Memory, one line per Rx-queue depth; descriptor threshold 4096 B and 512 B

Needs matplotlib (Debian: apt-get install python3-matplotlib; run with the system python3).
"""
import argparse
import csv
import os
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

KIB = 1024
PAPER_16K_SPEEDUP = 2.99  # Ma et al., Conclusions: 16 KB, every node, 72-node Df(2,4,2)


# result.json fields used here (results.csv columns)
DONE = "collective.completion_ns"
SETUP = "ragasa.setup.setup_ns"
STALL = "ragasa.units.memory_stall_ns"
HOL = "ragasa.units.rx_hol_blocked_ns"
RI = "ragasa.units.ri_blocked_ns"
WM_PEAK = "ragasa.units.working_memory_peak_bytes"
RX_PEAK = "ragasa.units.rx_queue_peak_packets"
ALG, BYTES, ROOT = "collective.algorithm", "collective.bytes", "collective.root"
PORT, THR = "ragasa.port_bandwidth_gib_per_s", "ragasa.descriptor_threshold_bytes"
WM, RXQ, SQ = "ragasa.working_memory_bytes", "ragasa.rx_queue_packets", "ragasa.send_queue_descriptors"


def read(res, study):
    """The successful points of RESULTS/<study>/results.csv."""
    path = os.path.join(res, study, "results.csv")
    rows = [r for r in csv.DictReader(open(path)) if r["status"] == "ok"]
    if not rows:
        raise SystemExit(f"{path}: no successful points")
    return rows


def variant(rows, alg, port="21", thr="4096"):
    """{bytes: row} of one variant of the sizes study (ragasa.* keys only matter to ragasa)."""
    return {int(r[BYTES]): r for r in rows if r[ALG] == alg and r[PORT] == port and r[THR] == thr}


def t(row, key=DONE):
    return float(row[key])


def size_label(b):
    return f"{b // (KIB * KIB)} MiB" if b >= KIB * KIB else f"{b // KIB} KiB"


def plot_sizes(res, out):
    sizes = read(res, "sizes")
    binomial = {x: t(r) for x, r in variant(sizes, "binomial").items()}
    series = []  # (label, {bytes: ns}, style)
    ports = {p: {x: t(r) for x, r in variant(sizes, "ragasa", port=p).items()}
             for p in {r[PORT] for r in sizes if r[ALG] == "ragasa"}}
    # Each series its own marker and line style (hollow markers): equal curves stay visible.
    styles = {"5.25": ("tab:red", ":", "v"), "10.5": ("tab:orange", "--", "^"),
              "21": ("tab:blue", "-", "D"), "42": ("tab:purple", "-.", "P")}
    for p in sorted(ports, key=float):
        color, ls, mk = styles.get(p, ("grey", (0, (5, 1)), "X"))
        label = f"ragasa, port {p} GiB/s" + (" (default)" if p == "21" else "")
        series.append((label, ports[p], dict(color=color, linestyle=ls, marker=mk, ms=5,
                                             fillstyle="none")))
    series.append(("ragasa, port 21, threshold 512 B",
                   {x: t(r) for x, r in variant(sizes, "ragasa", thr="512").items()},
                   dict(color="tab:green", linestyle=(0, (3, 1, 1, 1)), marker="s", ms=4,
                        fillstyle="none")))

    xs = sorted(binomial)
    fig, (ax, sp) = plt.subplots(2, 1, figsize=(7.5, 8), sharex=True,
                                 gridspec_kw={"height_ratios": [3, 2]})
    ax.plot(xs, [binomial[x] / 1000 for x in xs], color="black", marker="o", ms=3,
            label="binomial (MPICH)")
    for label, d, st in series:
        ax.plot(xs, [d[x] / 1000 for x in xs], label=label, **st)
        sp.plot(xs, [binomial[x] / d[x] for x in xs], label=label, **st)
    sp.scatter([16 * KIB], [PAPER_16K_SPEEDUP], marker="*", s=140, color="black", zorder=5,
               label=f"paper: {PAPER_16K_SPEEDUP}x at 16 KiB")
    sp.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_ylabel("completion time (µs)")
    ax.set_title("72-node Df(2,4,2), every node, root 0: broadcast completion")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    sp.set_xscale("log", base=2)
    sp.set_xticks(xs)
    sp.set_xticklabels([size_label(x) for x in xs], rotation=45, fontsize=8)
    sp.set_xlabel("message size")
    sp.set_ylabel("speedup over binomial")
    sp.grid(True, alpha=0.3)
    sp.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    path = os.path.join(out, "sizes.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_buffers(res, out):
    buffers = read(res, "buffers")
    sweeps = [("threshold 4096 B (default)", [r for r in buffers if r[THR] == "4096"]),
              ("threshold 512 B", [r for r in buffers if r[THR] == "512"])]
    metrics = [(DONE, "completion time (µs)"),
               (STALL, "memory stall, all units (µs)"),
               (RI, "RI blocked, all units (µs)")]
    fig, axes = plt.subplots(len(sweeps), len(metrics), figsize=(13, 7.5), sharex=True)
    markers = "ov^sD"
    linestyles = ("-", "--", "-.", ":", (0, (5, 1)))
    for row, (title, rows) in enumerate(sweeps):
        depths = sorted({int(r[RXQ]) for r in rows})
        for col, (metric, ylabel) in enumerate(metrics):
            ax = axes[row][col]
            for i, q in enumerate(depths):
                pts = sorted((int(r[WM]), float(r[metric]) / 1000)
                             for r in rows if int(r[RXQ]) == q)
                # identical lines overlap: offset the markers' size so each stays visible
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=markers[i % 5],
                        linestyle=linestyles[i % 5], ms=9 - 1.3 * i, fillstyle="none",
                        linewidth=1.2,
                        label=f"Rx-queue {q} packets")
            ax.set_xscale("log", base=2)
            wms = sorted({int(r[WM]) for r in rows})
            ax.set_xticks(wms)
            ax.set_xticklabels([f"{w // KIB}K" if w >= KIB else str(w) for w in wms], fontsize=8)
            ax.set_ylabel(ylabel)
            ax.set_title(f"16 KiB, {title}", fontsize=9)
            ax.grid(True, alpha=0.3)
            if row == len(sweeps) - 1:
                ax.set_xlabel("Working Memory (bytes)")
            if metric == DONE:
                ax.set_ylim(bottom=0)
    axes[0][0].legend(fontsize=8, loc="lower right")
    fig.suptitle("Bcast Unit buffer sweep (72-node Df(2,4,2), ragasa, port 21 GiB/s)")
    fig.tight_layout()
    path = os.path.join(out, "buffers.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# ---- Markdown tables of experiments/ragasa/README.md ----------------------------------------

def ns(v):
    return f"{v:,.1f}"


def per_depth(rows, wm, metric, depths):
    """One value if every Rx-queue depth gives the same, else 'a / b / ...' in depth order."""
    vals = [float(rows[(wm, q)][metric]) for q in depths]
    return ns(vals[0]) if len(set(vals)) == 1 else " / ".join(ns(v) for v in vals)


def print_tables(res):
    sizes = read(res, "sizes")
    binomial = variant(sizes, "binomial")
    ragasa = variant(sizes, "ragasa")
    thr = variant(sizes, "ragasa", thr="512")
    ports = sorted({r[PORT] for r in sizes if r[ALG] == "ragasa"}, key=float)
    port = {p: variant(sizes, "ragasa", port=p) for p in ports}
    xs = sorted(binomial)
    paper = {16 * KIB: f"{PAPER_16K_SPEEDUP}x", 1024 * KIB: "similar (large sizes)"}

    print("### Sizes (results/sizes: binomial, ragasa, ragasa with threshold 512 B)\n")
    print("| size | binomial ns | ragasa ns | speedup | ragasa + set-up ns | speedup incl. set-up "
          "| ragasa, threshold 512 B, ns | speedup | paper |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for x in xs:
        b, c, su, tt = t(binomial[x]), t(ragasa[x]), t(ragasa[x], SETUP), t(thr[x])
        print(f"| {size_label(x)} | {ns(b)} | {ns(c)} | {b / c:.2f}x | {ns(c + su)} | "
              f"{b / (c + su):.2f}x | {ns(tt)} | {b / tt:.2f}x | {paper.get(x, '')} |")
    setups = sorted({t(r, SETUP) for p in ports for r in port[p].values()} | {t(r, SETUP) for r in thr.values()})
    minis = sorted({r["ragasa.setup.mini_packets"] for r in ragasa.values()})
    print(f"\nset-up: {', '.join(ns(v) for v in setups)} ns; Mini Packets: {', '.join(minis)}")

    print("\n### Unit port bandwidth (results/sizes): ragasa ns (speedup over binomial)\n")
    print("| size | binomial ns | " + " | ".join(f"port {p} GiB/s" for p in ports) + " |")
    print("|---|---:|" + "---:|" * len(ports))
    for x in xs:
        b = t(binomial[x])
        cells = [f"{ns(t(port[p][x]))} ({b / t(port[p][x]):.2f}x)" for p in ports]
        print(f"| {size_label(x)} | {ns(b)} | " + " | ".join(cells) + " |")
    print("\n### Unit port bandwidth (results/sizes): memory stall ns, all units / peak Working Memory B\n")
    print("| size | " + " | ".join(f"port {p}" for p in ports) + " |")
    print("|---|" + "---:|" * len(ports))
    for x in xs:
        cells = [f"{ns(t(port[p][x], STALL))} / {int(port[p][x][WM_PEAK]):,}" for p in ports]
        print(f"| {size_label(x)} | " + " | ".join(cells) + " |")

    sq_rows = read(res, "send-queue")
    sq = {(r[BYTES], r[PORT], r[SQ]): r for r in sq_rows}
    depths = sorted({r[SQ] for r in sq_rows}, key=int)
    print("\n### Send queue (results/send-queue): ragasa ns\n")
    print("| size | port GiB/s | " + " | ".join(f"{d} descriptors" for d in depths) + " |")
    print("|---|---:|" + "---:|" * len(depths))
    for x in sorted({int(r[BYTES]) for r in sq_rows}):
        for p in sorted({r[PORT] for r in sq_rows}, key=float):
            cells = [ns(t(sq[(str(x), p, d)])) for d in depths]
            print(f"| {size_label(x)} | {p} | " + " | ".join(cells) + " |")

    buffers = read(res, "buffers")
    for threshold in sorted({r[THR] for r in buffers}, key=lambda v: -int(v)):
        rows = {(int(r[WM]), int(r[RXQ])): r for r in buffers if r[THR] == threshold}
        wms = sorted({w for w, _ in rows})
        qs = sorted({q for _, q in rows})
        qlabel = "/".join(str(q) for q in qs)
        print(f"\n### Buffer sweep at 16 KiB (results/buffers, threshold {threshold} B); "
              f"a / b / ... = Rx-queue depth {qlabel}\n")
        print("| Working Memory B | completion ns | memory stall ns | Rx HOL ns | RI blocked ns "
              "| peak Working Memory B | peak Rx-queue packets |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        for w in wms:
            peak_rx = [rows[(w, q)][RX_PEAK] for q in qs]
            peak_wm = {int(rows[(w, q)][WM_PEAK]) for q in qs}
            print(f"| {w:,} | {per_depth(rows, w, DONE, qs)} | {per_depth(rows, w, STALL, qs)} | "
                  f"{per_depth(rows, w, HOL, qs)} | {per_depth(rows, w, RI, qs)} | "
                  f"{' / '.join(f'{v:,}' for v in sorted(peak_wm))} | "
                  f"{peak_rx[0] if len(set(peak_rx)) == 1 else ' / '.join(peak_rx)} |")

    roots = {(r[ROOT], r[ALG]): r for r in read(res, "roots")}
    gm, lm = "traversals.global.messages", "traversals.local.messages"
    print("\n### Roots at 16 KiB (results/roots)\n")
    print("| root | binomial ns | binomial global / local messages | ragasa ns "
          "| ragasa global / local messages | speedup |")
    print("|---:|---:|---:|---:|---:|---:|")
    for root in sorted({k[0] for k in roots}, key=int):
        b, r = roots[(root, "binomial")], roots[(root, "ragasa")]
        print(f"| {root} | {ns(t(b))} | {b[gm]} / {b[lm]} | {ns(t(r))} | "
              f"{r[gm]} / {r[lm]} | {t(b) / t(r):.2f}x |")

    auto, ring = variant(sizes, "mpich-auto"), variant(sizes, "scatter-ring-allgather")
    print("\n### MPICH's other broadcasts (results/sizes): ns; ratio = mpich-auto / ragasa\n")
    print("| size | binomial | scatter + ring allgather | mpich-auto | ragasa, port 21 | ratio "
          "| ragasa, port 10.5 | ratio | ragasa, port 5.25 | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for x in xs:
        a = t(auto[x])
        cells = []
        for p in ("21", "10.5", "5.25"):
            c = t(port[p][x])
            cells += [ns(c), f"{a / c:.2f}x"]
        print(f"| {size_label(x)} | {ns(t(binomial[x]))} | {ns(t(ring[x]))} | {ns(a)} | "
              + " | ".join(cells) + " |")

    seeds = read(res, "seeds")
    print("\n### Seeds (results/seeds): distinct completion times over seeds "
          + ",".join(sorted({r["seed"] for r in seeds}, key=int)) + "\n")
    groups = defaultdict(set)
    for r in seeds:
        groups[(int(r[BYTES]), r[ALG])].add(r[DONE])
    for (x, alg), v in sorted(groups.items()):
        print(f"- {size_label(x)} {alg}: {', '.join(ns(float(c)) for c in sorted(v))}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", default="experiments/ragasa/results")
    ap.add_argument("--out", default="experiments/ragasa")
    ap.add_argument("--tables", action="store_true", help="print the README's Markdown tables")
    args = ap.parse_args()
    if args.tables:
        print_tables(args.results)
        return
    for path in (plot_sizes(args.results, args.out), plot_buffers(args.results, args.out)):
        print(path)


if __name__ == "__main__":
    main()
