#!/usr/bin/env python3
"""Plots the Ragasa experiment (experiments/ragasa/README.md) from its scripts/sweep.py CSVs.

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


def read(path):
    rows = [r for r in csv.DictReader(open(path)) if r["exit"] == "0"]
    if not rows:
        raise SystemExit(f"{path}: no successful runs")
    return rows


def size_label(b):
    return f"{b // (KIB * KIB)} MiB" if b >= KIB * KIB else f"{b // KIB} KiB"


def plot_sizes(res, out):
    sizes = read(os.path.join(res, "sizes.csv"))
    port = read(os.path.join(res, "port.csv"))
    thr = read(os.path.join(res, "sizes-threshold512.csv"))

    binomial = {int(r["collective.bytes"]): float(r["completion_ns"])
                for r in sizes if r["collective.algorithm"] == "binomial"}
    series = []  # (label, {bytes: ns}, style)
    ports = defaultdict(dict)
    for r in port:
        ports[r["ragasa.port_bandwidth_gib_per_s"]][int(r["collective.bytes"])] = float(r["completion_ns"])
    styles = {"5.25": ("tab:red", ":"), "10.5": ("tab:orange", "--"), "21": ("tab:blue", "-"),
              "42": ("tab:purple", "-.")}
    for p in sorted(ports, key=float):
        color, ls = styles.get(p, ("grey", "-"))
        label = f"ragasa, port {p} GiB/s" + (" (default)" if p == "21" else "")
        series.append((label, ports[p], dict(color=color, linestyle=ls, marker="o", ms=3)))
    series.append(("ragasa, port 21, threshold 512 B",
                   {int(r["collective.bytes"]): float(r["completion_ns"]) for r in thr},
                   dict(color="tab:green", linestyle="-", marker="s", ms=3)))

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
    sweeps = [("threshold 4096 B (default)", read(os.path.join(res, "buffers.csv"))),
              ("threshold 512 B", read(os.path.join(res, "buffers-threshold512.csv")))]
    metrics = [("completion_ns", "completion time (µs)"),
               ("memory_stall_ns", "memory stall, all units (µs)"),
               ("ri_blocked_ns", "RI blocked, all units (µs)")]
    fig, axes = plt.subplots(len(sweeps), len(metrics), figsize=(13, 7.5), sharex=True)
    markers = "ov^sD"
    for row, (title, rows) in enumerate(sweeps):
        depths = sorted({int(r["ragasa.rx_queue_packets"]) for r in rows})
        for col, (metric, ylabel) in enumerate(metrics):
            ax = axes[row][col]
            for i, q in enumerate(depths):
                pts = sorted((int(r["ragasa.working_memory_bytes"]), float(r[metric]) / 1000)
                             for r in rows if int(r["ragasa.rx_queue_packets"]) == q)
                # identical lines overlap: offset the markers' size so each stays visible
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=markers[i % 5],
                        ms=9 - 1.3 * i, fillstyle="none", linewidth=1.2,
                        label=f"Rx-queue {q} packets")
            ax.set_xscale("log", base=2)
            wms = sorted({int(r["ragasa.working_memory_bytes"]) for r in rows})
            ax.set_xticks(wms)
            ax.set_xticklabels([f"{w // KIB}K" if w >= KIB else str(w) for w in wms], fontsize=8)
            ax.set_ylabel(ylabel)
            ax.set_title(f"16 KiB, {title}", fontsize=9)
            ax.grid(True, alpha=0.3)
            if row == len(sweeps) - 1:
                ax.set_xlabel("Working Memory (bytes)")
            if metric == "completion_ns":
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


def by(rows, *keys):
    return {tuple(r[k] for k in keys): r for r in rows}


def per_depth(rows, wm, metric, depths):
    """One value if every Rx-queue depth gives the same, else 'a / b / ...' in depth order."""
    vals = [float(rows[(wm, q)][metric]) for q in depths]
    return ns(vals[0]) if len(set(vals)) == 1 else " / ".join(ns(v) for v in vals)


def print_tables(res):
    sizes = by(read(os.path.join(res, "sizes.csv")), "collective.bytes", "collective.algorithm")
    thr = by(read(os.path.join(res, "sizes-threshold512.csv")), "collective.bytes")
    port = by(read(os.path.join(res, "port.csv")), "collective.bytes", "ragasa.port_bandwidth_gib_per_s")
    xs = sorted({int(b) for b, _ in sizes})
    paper = {16 * KIB: f"{PAPER_16K_SPEEDUP}x", 1024 * KIB: "similar (large sizes)"}

    print("### Sizes (sizes.csv, sizes-threshold512.csv)\n")
    print("| size | binomial ns | ragasa ns | speedup | ragasa + set-up ns | speedup incl. set-up "
          "| ragasa, threshold 512 B, ns | speedup | paper |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for x in xs:
        b = float(sizes[(str(x), "binomial")]["completion_ns"])
        r = sizes[(str(x), "ragasa")]
        c, su = float(r["completion_ns"]), float(r["setup_ns"])
        t = float(thr[(str(x),)]["completion_ns"])
        print(f"| {size_label(x)} | {ns(b)} | {ns(c)} | {b / c:.2f}x | {ns(c + su)} | "
              f"{b / (c + su):.2f}x | {ns(t)} | {b / t:.2f}x | {paper.get(x, '')} |")

    ports = sorted({p for _, p in port}, key=float)
    print("\n### Unit port bandwidth (port.csv): ragasa ns (speedup over binomial)\n")
    print("| size | binomial ns | " + " | ".join(f"port {p} GiB/s" for p in ports) + " |")
    print("|---|---:|" + "---:|" * len(ports))
    for x in xs:
        b = float(sizes[(str(x), "binomial")]["completion_ns"])
        cells = []
        for p in ports:
            c = float(port[(str(x), p)]["completion_ns"])
            cells.append(f"{ns(c)} ({b / c:.2f}x)")
        print(f"| {size_label(x)} | {ns(b)} | " + " | ".join(cells) + " |")
    print("\n### Unit port bandwidth (port.csv): memory stall ns, all units / peak Working Memory B\n")
    print("| size | " + " | ".join(f"port {p}" for p in ports) + " |")
    print("|---|" + "---:|" * len(ports))
    for x in xs:
        cells = [f"{ns(float(port[(str(x), p)]['memory_stall_ns']))} / "
                 f"{int(port[(str(x), p)]['working_memory_peak_bytes']):,}" for p in ports]
        print(f"| {size_label(x)} | " + " | ".join(cells) + " |")

    sq_rows = read(os.path.join(res, "send-queue.csv"))
    sq = by(sq_rows, "collective.bytes", "ragasa.port_bandwidth_gib_per_s", "ragasa.send_queue_descriptors")
    depths = sorted({r["ragasa.send_queue_descriptors"] for r in sq_rows}, key=int)
    print("\n### Send queue (send-queue.csv): ragasa ns\n")
    print("| size | port GiB/s | " + " | ".join(f"{d} descriptors" for d in depths) + " |")
    print("|---|---:|" + "---:|" * len(depths))
    for x in sorted({int(r["collective.bytes"]) for r in sq_rows}):
        for p in sorted({r["ragasa.port_bandwidth_gib_per_s"] for r in sq_rows}, key=float):
            cells = [ns(float(sq[(str(x), p, d)]["completion_ns"])) for d in depths]
            print(f"| {size_label(x)} | {p} | " + " | ".join(cells) + " |")

    for name in ("buffers.csv", "buffers-threshold512.csv"):
        rows_ = read(os.path.join(res, name))
        rows = {(int(r["ragasa.working_memory_bytes"]), int(r["ragasa.rx_queue_packets"])): r for r in rows_}
        wms = sorted({w for w, _ in rows})
        qs = sorted({q for _, q in rows})
        qlabel = "/".join(str(q) for q in qs)
        print(f"\n### Buffer sweep at 16 KiB ({name}); a / b / ... = Rx-queue depth {qlabel}\n")
        print(f"| Working Memory B | completion ns | memory stall ns | Rx HOL ns | RI blocked ns "
              f"| peak Working Memory B | peak Rx-queue packets |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        for w in wms:
            peak_rx = [rows[(w, q)]["rx_queue_peak_packets"] for q in qs]
            peak_wm = {int(rows[(w, q)]["working_memory_peak_bytes"]) for q in qs}
            print(f"| {w:,} | {per_depth(rows, w, 'completion_ns', qs)} | "
                  f"{per_depth(rows, w, 'memory_stall_ns', qs)} | {per_depth(rows, w, 'rx_hol_blocked_ns', qs)} | "
                  f"{per_depth(rows, w, 'ri_blocked_ns', qs)} | "
                  f"{' / '.join(f'{v:,}' for v in sorted(peak_wm))} | "
                  f"{peak_rx[0] if len(set(peak_rx)) == 1 else ' / '.join(peak_rx)} |")

    roots = by(read(os.path.join(res, "roots.csv")), "collective.root", "collective.algorithm")
    print("\n### Roots at 16 KiB (roots.csv)\n")
    print("| root | binomial ns | binomial global / local messages | ragasa ns "
          "| ragasa global / local messages | speedup |")
    print("|---:|---:|---:|---:|---:|---:|")
    for root in sorted({k[0] for k in roots}, key=int):
        b, r = roots[(root, "binomial")], roots[(root, "ragasa")]
        bc, rc = float(b["completion_ns"]), float(r["completion_ns"])
        print(f"| {root} | {ns(bc)} | {b['global_messages']} / {b['local_messages']} | {ns(rc)} | "
              f"{r['global_messages']} / {r['local_messages']} | {bc / rc:.2f}x |")

    mp = by(read(os.path.join(res, "sizes-mpich.csv")), "collective.bytes", "collective.algorithm")
    print("\n### MPICH's other broadcasts (sizes-mpich.csv, port.csv): ns; ratio = "
          "mpich-auto / ragasa\n")
    print("| size | binomial | scatter + ring allgather | mpich-auto | ragasa, port 21 | ratio "
          "| ragasa, port 10.5 | ratio | ragasa, port 5.25 | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for x in xs:
        a = float(mp[(str(x), "mpich-auto")]["completion_ns"])
        cells = []
        for p in ("21", "10.5", "5.25"):
            c = float(port[(str(x), p)]["completion_ns"])
            cells += [ns(c), f"{a / c:.2f}x"]
        print(f"| {size_label(x)} | {ns(float(sizes[(str(x), 'binomial')]['completion_ns']))} | "
              f"{ns(float(mp[(str(x), 'scatter-ring-allgather')]['completion_ns']))} | {ns(a)} | "
              + " | ".join(cells) + " |")

    seeds = read(os.path.join(res, "seeds.csv"))
    print("\n### Seeds (seeds.csv): distinct completion times over seeds "
          + ",".join(sorted({r["seed"] for r in seeds}, key=int)) + "\n")
    groups = defaultdict(set)
    for r in seeds:
        groups[(int(r["collective.bytes"]), r["collective.algorithm"])].add(r["completion_ns"])
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
