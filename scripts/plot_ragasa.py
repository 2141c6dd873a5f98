#!/usr/bin/env python3
"""Plots the Ragasa experiment (experiments/ragasa/README.md) from its `bcastsim sweep` results.

Reads RESULTS/<study>/results.csv for the studies experiments/ragasa/{sizes,send-queue,buffers,
buffers-all,buffers-ensemble,roots,seeds}.yaml (columns named by result.json's dotted paths, e.g.
collective.completion_ns).

  scripts/plot_ragasa.py [--results experiments/ragasa/results] [--out experiments/ragasa]
  scripts/plot_ragasa.py --tables     # prints the README's Markdown tables instead

With every node broadcasting the tables lead with the headline (README.md, Metrics): the mean
over the broadcasts of each one's data completion from its own start
(collective.broadcasts.data_completion_ns.mean), with Ragasa's set-up beside it
(ragasa.broadcasts.setup_ns.*); results from before those columns show '-' there.

Writes into --out:
  sizes.png    completion time vs message size (log-log) for binomial and ragasa (unit port
               5.25 .. 42 GiB/s, and descriptor threshold 512 B), and the speedup over binomial
  buffers.png  the 16 KiB buffer sweeps: completion, memory stall and RI-blocked time vs Working
               Memory, one line per Rx-queue depth and descriptor threshold (4096 B, 512 B);
               rows: one broadcast with nodes relaying, with units relaying, and all 72 nodes
               broadcasting with nodes relaying (deadlocked points marked on the axis)
  buffers-ensemble.png
               all 72 nodes broadcasting, nodes relaying: the mean and standard deviation of
               completion and of the mean rank completion over the host send overheads of
               buffers-ensemble.yaml, vs Working Memory, one line per Rx-queue depth

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
CONN = "ragasa.units.connection_wait_ns"
RANK_AVG = "collective.rank_completion_ns_avg"
ALG, BYTES, ROOT = "collective.algorithm", "collective.bytes", "collective.root"
PORT, THR = "ragasa.port_bandwidth_gib_per_s", "ragasa.descriptor_threshold_bytes"
WM, RXQ, SQ = "ragasa.working_memory_bytes", "ragasa.rx_queue_packets", "ragasa.send_queue_descriptors"
OVERHEAD = "host.send_overhead_ns"
ROOTS = "collective.roots"
# Every node broadcasting (README.md, Metrics): each broadcast from its own start, its set-up
# (Ragasa) beside it. Results from before these columns have none; their cells read "-".
BC_DATA = "collective.broadcasts.data_completion_ns.mean"
BC_DATA_MAX = "collective.broadcasts.data_completion_ns.max"
BC_RANK = "collective.broadcasts.rank_average_ns.mean"
BC_SETUP = "ragasa.broadcasts.setup_ns.mean"
BC_SETUP_MAX = "ragasa.broadcasts.setup_ns.max"


def has(row, key):
    return row.get(key) not in (None, "")


def headline(row):
    """The run's headline: with every node broadcasting, the mean over the broadcasts of each
    one's data completion from its own start (set-up apart); with one root, completion (the
    same figure). An older results.csv without the column gives completion, the first start to
    the last rank, set-up waits mixed in."""
    return float(row[BC_DATA]) if has(row, BC_DATA) else float(row[DONE])


def opt(row, key, fmt=None):
    """A cell of an optional column: '-' where the results have none."""
    return (fmt or ns)(float(row[key])) if has(row, key) else "-"
# df72.yaml's unit port rate (a router port's own; 21 before issue 40), as the sweeps write it.
DEFAULT_PORT = "5.25"


def read(res, study):
    """The successful points of RESULTS/<study>/results.csv."""
    path = os.path.join(res, study, "results.csv")
    with open(path) as f:
        rows = [r for r in csv.DictReader(f) if r["status"] == "ok"]
    if not rows:
        raise SystemExit(f"{path}: no successful points")
    return rows


def variant(rows, alg, port="21", thr="4096"):
    """{bytes: row} of one variant of the sizes study (ragasa.* keys only matter to ragasa)."""
    return {int(r[BYTES]): r for r in rows if r[ALG] == alg and r[PORT] == port and r[THR] == thr}


def t(row, key=DONE):
    return float(row[key])


def memory_axis(ax, wms):
    """A log2 x axis of Working Memory sizes, each one a tick: 512, 1K, ..., 64K."""
    ax.set_xscale("log", base=2)
    ax.set_xticks(wms)
    ax.set_xticklabels([f"{w // KIB}K" if w >= KIB else str(w) for w in wms], fontsize=8)


def save(fig, out, name, dpi):
    path = os.path.join(out, name)
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path


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
        label = f"ragasa, port {p} GiB/s" + (" (default)" if p == DEFAULT_PORT else "")
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
    return save(fig, out, "sizes.png", dpi=120)


def read_buffers(res, study):
    """Every point of RESULTS/<study>/results.csv, failed ones too (a deadlock is a result)."""
    path = os.path.join(res, study, "results.csv")
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not any(r["status"] == "ok" for r in rows):
        raise SystemExit(f"{path}: no successful points")
    return rows


# The buffer studies: (study, relay, title). buffers-all also holds units relaying at 64 KiB,
# which deadlocks at every depth (the README says so; it is not plotted).
BUFFER_CASES = [("buffers", "node", "one broadcast, nodes relay"),
                ("buffers", "unit", "one broadcast, units relay"),
                ("buffers-all", "node", "all 72 nodes broadcasting, nodes relay")]
RELAY = "ragasa.relay"


def plot_buffers(res, out):
    from matplotlib.lines import Line2D
    studies = {s: read_buffers(res, s) for s in {c[0] for c in BUFFER_CASES}}
    # (column, label, unit per case: one broadcast in µs, all nodes' summed waits in ms)
    metrics = [(DONE, "completion", ("µs", "µs")),
               (STALL, "memory stall, all units", ("µs", "ms")),
               (RI, "RI blocked, all units", ("µs", "ms"))]
    thresholds = [("4096", "-", "o"), ("512", "--", "s")]
    fig, axes = plt.subplots(len(BUFFER_CASES), len(metrics), figsize=(14, 11), sharex=True)
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]
    depths = sorted({int(r[RXQ]) for rows in studies.values() for r in rows})
    wms = sorted({int(r[WM]) for rows in studies.values() for r in rows})
    for row, (study, relay, title) in enumerate(BUFFER_CASES):
        rows = [r for r in studies[study] if r[RELAY] == relay]
        for col, (metric, label, units) in enumerate(metrics):
            ax = axes[row][col]
            unit = units[study == "buffers-all"]
            scale = 1e3 if unit == "µs" else 1e6
            dead = []
            for thr, ls, mk in thresholds:
                for i, q in enumerate(depths):
                    sel = [r for r in rows if r[THR] == thr and int(r[RXQ]) == q]
                    pts = sorted((int(r[WM]), float(r[metric]) / scale)
                                 for r in sel if r["status"] == "ok")
                    dead += [int(r[WM]) for r in sel if r["status"] != "ok"]
                    # equal lines overlap: shrink the markers with depth so each stays visible
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], color=colors[i % 5],
                            linestyle=ls, marker=mk, ms=9 - 1.3 * i, fillstyle="none",
                            linewidth=1.1)
            if metric == DONE and dead:
                # failed points (deadlocks): a cross on the axis, at their Working Memory
                ax.scatter(sorted(set(dead)), [0.04] * len(set(dead)), marker="X", s=90,
                           color="black", zorder=5, clip_on=False,
                           transform=ax.get_xaxis_transform())
            memory_axis(ax, wms)
            ax.set_ylabel(f"{label} ({unit})")
            ax.set_title(f"16 KiB, {title}", fontsize=9)
            ax.grid(True, alpha=0.3)
            if row == len(BUFFER_CASES) - 1:
                ax.set_xlabel("Working Memory (bytes)")
    handles = [Line2D([], [], color=colors[i % 5], marker="o", fillstyle="none", linestyle="-",
                      label=f"Rx-queue {q} packets") for i, q in enumerate(depths)]
    handles += [Line2D([], [], color="grey", linestyle=ls, marker=mk, fillstyle="none",
                       label=f"threshold {thr} B") for thr, ls, mk in thresholds]
    handles.append(Line2D([], [], color="black", marker="X", ms=8, linestyle="none",
                          label="deadlock (some depth)"))
    fig.legend(handles=handles, loc="lower center", ncol=4, fontsize=9)
    fig.suptitle("Bcast Unit buffer sweep at 16 KiB (72-node Df(2,4,2), ragasa, "
                 f"port {DEFAULT_PORT} GiB/s)")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return save(fig, out, "buffers.png", dpi=100)


# ---- Markdown tables of experiments/ragasa/README.md ----------------------------------------

def ns(v):
    return f"{v:,.1f}"


def per_depth(rows, wm, metric, depths, fmt=ns):
    """One value if every Rx-queue depth gives the same, else 'a / b / ...' in depth order; a
    failed point (a deadlock: the run stalled, exit 1) reads 'deadlock'."""
    vals = [fmt(float(rows[(wm, q)][metric])) if rows[(wm, q)]["status"] == "ok" else "deadlock"
            for q in depths]
    return vals[0] if len(set(vals)) == 1 else " / ".join(vals)


def count(v):
    return f"{int(v):,}"


def print_buffer_tables(res):
    """The buffer sweep's tables, one per study, relay and threshold, and every pair of adjacent
    Working Memory sizes (same relay, threshold and depth) where the smaller one finished first."""
    def ms(v):
        return f"{v / 1e6:,.2f}"

    one = [("completion ns", DONE, ns), ("memory stall ns", STALL, ns), ("Rx HOL ns", HOL, ns),
           ("RI blocked ns", RI, ns), ("connection wait ns", CONN, ns),
           ("peak Working Memory B", WM_PEAK, count), ("peak Rx-queue packets", RX_PEAK, count)]
    # All nodes: the waits run to milliseconds, and the peaks are the whole memory and the
    # whole queue at every completed point (checked below), so they are left out.
    # All nodes: the headline (mean per-broadcast data completion from its own start) and
    # the set-up beside it, then the span (first start to last rank) that mixes them.
    every = [("mean broadcast data ns", BC_DATA, ns), ("mean set-up ns", BC_SETUP, ns),
             ("completion (span) ns", DONE, ns), ("mean rank completion ns", RANK_AVG, ns),
             ("memory stall ms", STALL, ms), ("Rx HOL ms", HOL, ms), ("RI blocked ms", RI, ms),
             ("connection wait ms", CONN, ms)]
    for study, title, cols in (("buffers", "one broadcast from rank 0", one),
                               ("buffers-all", "all 72 nodes broadcasting", every)):
        rows_all = read_buffers(res, study)
        # Columns the results do not have (a study from before them) are left out.
        cols = [c for c in cols if any(has(r, c[1]) for r in rows_all)]
        if study == "buffers-all":
            done = [r for r in rows_all if r["status"] == "ok"]
            full = all(int(r[WM_PEAK]) == int(r[WM]) and int(r[RX_PEAK]) == int(r[RXQ])
                       for r in done)
            print(f"\n{study}: peak Working Memory = Working Memory and peak Rx-queue = depth "
                  f"at {'every' if full else 'NOT every'} completed point ({len(done)})")
        for relay in sorted({r[RELAY] for r in rows_all}, key=lambda v: v != "node"):
            for threshold in sorted({r[THR] for r in rows_all if r[RELAY] == relay},
                                    key=lambda v: -int(v)):
                rows = {(int(r[WM]), int(r[RXQ])): r for r in rows_all
                        if r[RELAY] == relay and r[THR] == threshold}
                wms = sorted({w for w, _ in rows})
                qs = sorted({q for _, q in rows})
                print(f"\n### Buffer sweep at 16 KiB, {title}, {relay}s relay, threshold "
                      f"{threshold} B (results/{study}); a / b / ... = Rx-queue depth "
                      + "/".join(str(q) for q in qs) + "\n")
                print("| Working Memory B | " + " | ".join(h for h, _, _ in cols) + " |")
                print("|---:|" + "---:|" * len(cols))
                for w in wms:
                    print(f"| {w:,} | "
                          + " | ".join(per_depth(rows, w, c, qs, f) for _, c, f in cols) + " |")
                faster = []
                for q in qs:
                    for a, b in zip(wms, wms[1:]):
                        ra, rb = rows[(a, q)], rows[(b, q)]
                        ha, hb = (headline(ra), headline(rb)) if ra["status"] == rb["status"] == "ok" else (0, 0)
                        if ra["status"] == rb["status"] == "ok" and ha < hb:
                            faster.append(f"depth {q}: {a:,} B {ns(ha)} < {b:,} B "
                                          f"{ns(hb)} ({100 * (hb - ha) / hb:.2f} %)")
                pairs = sum(rows[(a, q)]["status"] == rows[(b, q)]["status"] == "ok"
                            for q in qs for a, b in zip(wms, wms[1:]))
                by = "mean broadcast data" if any(has(r, BC_DATA) for r in rows.values()) else "completion"
                print(f"\nless memory finished first ({by}) in {len(faster)} of {pairs} adjacent pairs"
                      + (":" if faster else "."))
                for f in faster:
                    print(f"- {f}")


# ---- The ensemble: buffers-all's grid over host send overheads ------------------------------

def ensemble(res):
    """{(threshold, depth, wm): ([values per metric of ENSEMBLE_METRICS], failed points)} of
    buffers-ensemble, one value per host send overhead that completed (a metric the results do
    not have gets none)."""
    groups = defaultdict(lambda: ([[] for _ in ENSEMBLE_METRICS], 0))
    for r in read_buffers(res, "buffers-ensemble"):
        key = (int(r[THR]), int(r[RXQ]), int(r[WM]))
        values, failed = groups[key]
        if r["status"] == "ok":
            for v, (col, _) in zip(values, ENSEMBLE_METRICS):
                if has(r, col):
                    v.append(float(r[col]))
        groups[key] = (values, failed + (r["status"] != "ok"))
    return groups


# The ensemble's metrics: the headline first (each broadcast from its own start, set-up apart),
# then the span and the mean rank completion, which mix the later broadcasts' set-up in.
ENSEMBLE_METRICS = [(BC_DATA, "mean broadcast data completion"),
                    (DONE, "completion (first start to last rank)"),
                    (RANK_AVG, "mean rank completion")]


def mean_sd(v):
    m = sum(v) / len(v)
    return m, (sum((x - m) ** 2 for x in v) / (len(v) - 1)) ** 0.5 if len(v) > 1 else 0.0


def plot_ensemble(res, out):
    groups = ensemble(res)
    thresholds = sorted({k[0] for k in groups}, reverse=True)
    depths = sorted({k[1] for k in groups})
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]
    # The metrics the results have (a study from before the per-broadcast figures has two).
    shown = [(i, label) for i, (_, label) in enumerate(ENSEMBLE_METRICS)
             if any(v[0][i] for v in groups.values())]
    fig, axes = plt.subplots(len(shown), len(thresholds), figsize=(13, 4.25 * len(shown)),
                             sharey="row", squeeze=False)
    for col, thr in enumerate(thresholds):
        for row, (idx, label) in enumerate(shown):
            ax = axes[row][col]
            for i, q in enumerate(depths):
                pts = sorted((k[2], mean_sd(v[0][idx])) for k, v in groups.items()
                             if k[0] == thr and k[1] == q and len(v[0][idx]) > 1)
                # a small shift per depth keeps the error bars apart
                xs = [w * 2 ** (0.06 * (i - 2)) for w, _ in pts]
                ax.errorbar(xs, [m / 1e3 for _, (m, _) in pts], yerr=[s / 1e3 for _, (_, s) in pts],
                            color=colors[i % 5], marker="o", ms=4, capsize=3, linewidth=1.1,
                            label=f"Rx-queue {q} packets")
            wms = sorted({k[2] for k in groups if k[0] == thr})
            memory_axis(ax, wms)
            ax.set_ylabel(f"{label} (µs)")
            ax.set_title(f"threshold {thr} B: {label}", fontsize=10)
            ax.grid(True, alpha=0.3)
            if row == len(shown) - 1:
                ax.set_xlabel("Working Memory (bytes)")
    axes[0][0].legend(fontsize=8)
    n = max(len(v[0][shown[0][0]]) + v[1] for v in groups.values())
    fig.suptitle("All 72 nodes broadcasting 16 KiB, nodes relay: mean and standard deviation "
                 f"over {n} host send overheads (290 to 310 ns)")
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    return save(fig, out, "buffers-ensemble.png", dpi=100)


def print_ensemble_tables(res):
    """Mean +- standard deviation per point, and every pair of adjacent Working Memory sizes
    whose means differ by more than twice the standard error of the difference."""
    groups = ensemble(res)

    def cell(v, failed):
        if not v:
            return "deadlock"
        m, sd = mean_sd(v)
        return f"{m / 1e3:,.1f} ± {sd / 1e3:,.1f}" + (f" ({failed} dl)" if failed else "")

    for thr in sorted({k[0] for k in groups}, reverse=True):
        depths = sorted({k[1] for k in groups if k[0] == thr})
        wms = sorted({k[2] for k in groups if k[0] == thr})
        for idx, (_, name) in enumerate(ENSEMBLE_METRICS):
            if not any(v[0][idx] for v in groups.values()):
                continue  # results from before the metric
            label = f"{name} µs"
            print(f"\n### Ensemble (results/buffers-ensemble), threshold {thr} B, {label}: "
                  "mean ± standard deviation; columns: Rx-queue depth\n")
            print("| Working Memory B | " + " | ".join(str(q) for q in depths) + " |")
            print("|---:|" + "---:|" * len(depths))
            for w in wms:
                print(f"| {w:,} | " + " | ".join(cell(groups[(thr, q, w)][0][idx], groups[(thr, q, w)][1])
                                                 for q in depths) + " |")
            verdicts = defaultdict(list)
            for q in depths:
                for a, b in zip(wms, wms[1:]):
                    va, vb = groups[(thr, q, a)][0][idx], groups[(thr, q, b)][0][idx]
                    if len(va) < 2 or len(vb) < 2:
                        continue
                    (ma, sa), (mb, sb) = mean_sd(va), mean_sd(vb)
                    se = (sa ** 2 / len(va) + sb ** 2 / len(vb)) ** 0.5
                    kind = ("less memory faster" if ma < mb - 2 * se else
                            "less memory slower" if ma > mb + 2 * se else "within 2 SE")
                    verdicts[kind].append(f"d{q} {a}<{b}: {100 * (mb - ma) / mb:+.1f} %")
            for kind in ("less memory faster", "within 2 SE", "less memory slower"):
                print(f"\n{kind}: {len(verdicts[kind])}" + (": " + "; ".join(verdicts[kind])
                                                            if kind != "within 2 SE" else ""))


def print_readings_tables(res):
    """readings: binomial against both relays, (a) one root, (b) every node broadcasting. (b)
    leads with the headline (mean per-broadcast data completion from its own start) and puts
    Ragasa's set-up beside it, then the span (first start to last rank), which mixes them."""
    rows = read_buffers(res, "readings")
    by = {(r[ROOTS], int(r[BYTES]), r[ALG], r[RELAY]): r for r in rows}
    xs = sorted({int(r[BYTES]) for r in rows})
    paper = {16 * KIB: f"{PAPER_16K_SPEEDUP}x (all nodes)", 256 * KIB: "similar (all nodes)",
             512 * KIB: "similar (all nodes)", 1024 * KIB: "similar (all nodes)"}

    def cells(roots, x, relay, b):
        r = by.get((roots, x, "ragasa", relay))
        if r is None or r["status"] != "ok":
            return ["deadlock" if r is not None else "-", "-"]
        return [ns(headline(r)), f"{b / headline(r):.2f}x"]

    every = ("(b) all 72 nodes broadcasting: mean over the broadcasts of each one's data "
             "completion from its own start, ns" if any(has(r, BC_DATA) for r in rows) else
             "(b) all 72 nodes broadcasting: completion from the first start to the last rank "
             "(results from before the per-broadcast columns), ns")
    for roots, title in (("one", "(a) one broadcast from rank 0, completion ns"), ("all", every)):
        print(f"\n### Readings (results/readings) {title}\n")
        print("| size | binomial | ragasa, nodes relay | speedup | ragasa, units relay | speedup "
              "| paper |")
        print("|---|---:|---:|---:|---:|---:|---|")
        for x in xs:
            b = by.get((roots, x, "binomial", "node"))
            if b is None or b["status"] != "ok":
                continue
            hb = headline(b)
            print(f"| {size_label(x)} | {ns(hb)} | " + " | ".join(
                cells(roots, x, "node", hb) + cells(roots, x, "unit", hb))
                + f" | {paper.get(x, '')} |")
    print("\n### Readings (results/readings), all nodes: Ragasa's set-up beside its data, and "
          "the span (first start to last rank), ns\n")
    print("| size | relay | mean broadcast data | max broadcast data | mean rank average "
          "| mean set-up | max set-up | span | binomial span |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for x in xs:
        b = by.get(("all", x, "binomial", "node"))
        for relay in ("node", "unit"):
            r = by.get(("all", x, "ragasa", relay))
            if r is None or r["status"] != "ok":
                continue
            print(f"| {size_label(x)} | {relay} | {opt(r, BC_DATA)} | {opt(r, BC_DATA_MAX)} | "
                  f"{opt(r, BC_RANK)} | {opt(r, BC_SETUP)} | {opt(r, BC_SETUP_MAX)} | "
                  f"{ns(t(r))} | {opt(b, DONE) if b and b['status'] == 'ok' else '-'} |")


def print_tables(res):
    print_readings_tables(res)
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

    print_buffer_tables(res)
    print_ensemble_tables(res)

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
    for path in (plot_sizes(args.results, args.out), plot_buffers(args.results, args.out),
                 plot_ensemble(args.results, args.out)):
        print(path)


if __name__ == "__main__":
    main()
