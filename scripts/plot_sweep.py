#!/usr/bin/env python3
"""Plots a `bcastsim sweep` output directory: the study's own plot list, or one plot ad hoc.

  scripts/plot_sweep.py OUT [--out-dir DIR]     # every entry of OUT/study.json `plots`
  scripts/plot_sweep.py KIND OUT [options]      # one plot: lines|speedup|heatmap|links|dragonfly
  scripts/plot_sweep.py dragonfly --result result.json --out f.png

Reads OUT/results.csv (one row per point; rows whose status is not `ok` are skipped),
OUT/study.json and, for `dragonfly`, the points' result.json `link_traffic` (the study must set
output.link_traffic=on). Writes PNGs into OUT/plots/ (or --out-dir / --out) and prints each
file written. A plot entry is an object with `kind`, `file` (default NN-KIND.png) and:

  all        where: {key: value or [values]} (rows to use; any CSV column), title (wrapped
             if too wide for the PNG), xlabel, ylabel
  lines      x, y, series (one line per value, each its own colour, marker and line style),
             logx (default: x is a *bytes key), logy (auto: y spans over 100x; a log axis
             spanning under 1,000x labels every 1, 2 and 5). Replicates at one x: median,
             min-max error bars.
  speedup    x, y, series, baseline (a series value): baseline y / y per series, the median
             over runs paired by seed (else the ratio of medians); logx as lines
  heatmap    x, y, value; normalize: row|column|none (default none; row: each row, one y
             value, over its minimum: the slowdown). Cells annotated; colour bar with units
  links      metric: messages|packets (default messages), x, series, logy (default false):
             traversals.{terminal,local,global}.<metric> per x value (per point without x);
             with series, one panel per link class
  dragonfly  panels (a key: one panel per value, its first matching point), point (an
             index), else one panel per matching point (at most 16): terminals on a circle by group and router, the job's
             ranks and root marked, every global link that carried messages as a chord

Bad input (missing key or column, no matching rows, no link_traffic) exits 2 naming the key;
a study's plot that fails while rows it selects are still pending (not run yet) is a note, and
if every failing plot is such, the exit code is 3.
Needs matplotlib (Debian: apt-get install python3-matplotlib; run with /usr/bin/python3).
"""
import argparse
import csv
import json
import math
import os
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plot_dragonfly.py, beside us
import plot_dragonfly as dragonfly  # noqa: E402
from plot_dragonfly import BadInput  # noqa: E402


class NeedsPointFiles(Exception):
    """A plot reading points' result.json where only results.csv holds them (a checkout
    without points/): a note, as for pending rows, not a failure."""
from plot_axes import fit_titles, log_y, series_style, spaced_ticks  # noqa: E402,F401

KINDS = ("lines", "speedup", "heatmap", "links", "dragonfly")
CLASSES = ("terminal", "local", "global")
CLASS_COLORS = {"terminal": "#8c8c8c", "local": "tab:blue", "global": "tab:orange"}
PRETTY = {  # axis labels of common keys; others show the key itself
    "collective.completion_ns": "broadcast completion time", "collective.bytes": "message size",
    "collective.makespan_links": "makespan (link units)", "collective.algorithm": "algorithm",
    "sim_time_ns": "simulated time", "packets.latency_ns_avg": "mean packet latency",
    "packets.hops_avg": "mean routers per packet", "perf.packet_hops": "packet hops",
    "ragasa.units.memory_stall_ns": "Bcast Unit memory stall", "routing.kind": "routing",
    "traffic.load": "offered load (of the terminal link)",
    "traffic.accepted_load": "accepted load (of the terminal link)",
    "traffic.latency_ns.avg": "average packet latency",
    "traffic.latency_ns.p99": "99th-percentile packet latency",
    "traffic.codes_latency_ns": "average chunk latency (CODES's definition)",
    "traffic.codes_accepted_load": "accepted load, CODES's definition (of the terminal link)"}


# ---- values, units, labels ----------------------------------------------------------------

def number(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def is_bytes(key):
    return key.endswith("bytes") or "_bytes" in key


def is_time_ns(key):
    return key.endswith("_ns") or "_ns_" in key or "_ns." in key  # traffic.latency_ns.avg


def pretty(key):
    if key in PRETTY:
        return PRETTY[key]
    parts = key.split(".")
    if len(parts) == 3 and parts[0] == "traversals":
        return f"{parts[1]}-link {parts[2]}"
    return key


def size_label(v):
    for unit, f in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if v >= f:
            return f"{v / f:g} {unit}"
    return f"{v:g} B"


def value_label(key, v):
    x = number(v)
    return size_label(x) if x is not None and is_bytes(key) else str(v)


def y_scale(key, values):
    """(divisor, axis label) for a result column: ns shown in µs, ms or s when large."""
    if not is_time_ns(key):
        return 1.0, pretty(key)
    m = max((abs(v) for v in values), default=0)
    f, unit = next(((f, u) for f, u in ((1e9, "s"), (1e6, "ms"), (1e3, "µs")) if m >= f),
                   (1.0, "ns"))
    return f, f"{pretty(key)} ({unit})"


def truthy(v, default=False):
    if isinstance(v, str):
        return v.lower() in ("true", "on", "yes", "1")
    return default if v is None else bool(v)


def same(cell, want):
    if isinstance(want, list):  # where: {key: [a, b]}
        return any(same(cell, w) for w in want)
    if str(cell) == str(want):
        return True
    a, b = number(cell), number(want)
    return a is not None and b is not None and a == b


# ---- the sweep directory ---------------------------------------------------------------------

class Sweep:
    def __init__(self, out):
        self.out = out
        self.csv_path = os.path.join(out, "results.csv")
        if not os.path.isfile(self.csv_path):
            raise BadInput(f"{self.csv_path} not found: OUT must be a sweep output directory")
        with open(self.csv_path, newline="") as f:
            reader = csv.DictReader(f)
            self.columns = reader.fieldnames or []
            self.all_rows = list(reader)
        if "status" not in self.columns:
            raise BadInput(f"{self.csv_path} has no 'status' column")
        self.rows = [r for r in self.all_rows if r["status"] == "ok"]
        study_path = os.path.join(out, "study.json")
        self.study = {}
        if os.path.isfile(study_path):
            with open(study_path) as f:
                self.study = json.load(f)
        self.parameters = self.study.get("parameters")
        if not self.parameters and "seed" in self.columns:  # the columns before `seed`
            self.parameters = [c for c in self.columns[1:self.columns.index("seed")]
                               if c != "replicate"]

    def need(self, key, what):
        if key not in self.columns:
            raise BadInput(f"{what} '{key}' is not a column of {self.csv_path}; columns: "
                           + ", ".join(self.columns))

    def select(self, where, *keys):
        """The ok rows matching `where` that have a value in every key of `keys`."""
        where = where or {}
        for k in where:
            self.need(k, "where key")
        rows = [r for r in self.rows if all(same(r[k], v) for k, v in where.items())]
        if not rows:
            cond = ", ".join(f"{k}={v}" for k, v in where.items()) or "none"
            raise BadInput(f"no successful rows in {self.csv_path} match where ({cond}); "
                           f"{len(self.rows)} of {len(self.all_rows)} rows are ok")
        for k in keys:
            if not any(r[k] != "" for r in rows):
                raise BadInput(f"column '{k}' is empty in every selected row of {self.csv_path}")
        return [r for r in rows if all(r[k] != "" for k in keys)]

    def pending_rows(self, where):
        """How many rows not run yet (a sweep's --only left them) match `where`: a plot that
        fails for want of rows may be waiting for them."""
        where = where if isinstance(where, dict) else {}
        if any(k not in self.columns for k in where):
            return 0
        return sum(1 for r in self.all_rows if r["status"] == "pending"
                   and all(same(r[k], v) for k, v in where.items()))

    def point_dir(self, row):
        idx = int(row["point"])
        for p in self.study.get("points", []):
            if p.get("index") == idx:
                return os.path.join(self.out, p["dir"])
        return os.path.join(self.out, "points", f"{idx:04d}")


def ordered(values, key):
    """Distinct values: numeric ascending when all are numbers, else first-seen order."""
    seen = list(dict.fromkeys(values))
    if seen and all(number(v) is not None for v in seen):
        return sorted(seen, key=number)
    return seen


def spread(values):
    """median, min, max"""
    return statistics.median(values), min(values), max(values)


def grouped(rows, col, *keys):
    """{(row[k] for k in keys; None for no key): [float(row[col])]}"""
    out = {}
    for r in rows:
        out.setdefault(tuple(r[k] if k else None for k in keys), []).append(float(r[col]))
    return out


def name(spec):
    return f"plot '{spec.get('file') or spec['kind']}' ({spec['kind']})"


def required(sweep, spec, *keys):
    """The plot entry's values of `keys`, each one a column of results.csv."""
    for k in keys:
        if spec.get(k) in (None, ""):
            raise BadInput(f"{name(spec)}: missing key '{k}'")
        sweep.need(spec[k], k)
    return [spec[k] for k in keys]


def choice(spec, key, default, allowed):
    v = spec.get(key) or default
    if v not in allowed:
        raise BadInput(f"{name(spec)}: {key} = '{v}' is not valid; allowed: " + ", ".join(allowed))
    return v


def set_x_axis(ax, key, xs, logx):
    """Numeric x with bytes tick labels, or categories at 0..n-1. Returns x -> position."""
    nums = [number(x) for x in xs]
    if all(n is not None for n in nums):
        if logx:
            ax.set_xscale("log", base=2 if is_bytes(key) else 10)
        if is_bytes(key) or len(xs) <= 12:
            shown = spaced_ticks(nums, logx)
            ax.set_xticks([nums[i] for i in shown])
            ax.set_xticklabels([value_label(key, xs[i]) for i in shown])
            ax.minorticks_off()
        return {x: n for x, n in zip(xs, nums)}
    ax.set_xticks(range(len(xs)))
    ax.set_xticklabels(xs)
    return {x: i for i, x in enumerate(xs)}


def finish(fig, ax, spec, xlabel, ylabel, path):
    ax.set_xlabel(spec.get("xlabel", xlabel))
    ax.set_ylabel(spec.get("ylabel", ylabel))
    if spec.get("title"):
        ax.set_title(spec["title"])
    ax.grid(True, which="major", alpha=0.3)
    save(fig, path)


def save(fig, path):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fit_titles(fig)
    fig.savefig(path, dpi=150)
    plt.close(fig)


def series_groups(sweep, rows, spec):
    series = spec.get("series")
    if series:
        sweep.need(series, "series")
        return series, ordered([r[series] for r in rows], series)
    return None, [None]


# ---- kinds -----------------------------------------------------------------------------------

def plot_lines(sweep, spec, path):
    x, y = required(sweep, spec, "x", "y")
    rows = sweep.select(spec.get("where"), x, y)
    series, values = series_groups(sweep, rows, spec)
    xs = ordered([r[x] for r in rows], x)
    f, ylabel = y_scale(y, [float(r[y]) for r in rows])
    fig, ax = plt.subplots(figsize=(7, 4.5))
    pos = set_x_axis(ax, x, xs, truthy(spec.get("logx"), default=is_bytes(x)))
    lo_all, hi_all = math.inf, 0.0
    groups = grouped(rows, y, series, x)
    for i, s in enumerate(values):
        pts = [(pos[xv], *(v / f for v in spread(groups[s, xv]))) for xv in xs if (s, xv) in groups]
        if not pts:
            continue
        px, med, lo, hi = zip(*pts)
        lo_all, hi_all = min(lo_all, *lo), max(hi_all, *hi)
        yerr = [[m - a for m, a in zip(med, lo)], [b - m for m, b in zip(med, hi)]]
        ax.errorbar(px, med, yerr=yerr if any(map(any, yerr)) else None, capsize=3,
                    label=None if s is None else value_label(series, s), **series_style(i))
    if truthy(spec.get("logy"), default=lo_all > 0 and hi_all / lo_all > 100):
        log_y(ax)
    if series:
        ax.legend(title=pretty(series), fontsize=8)
    finish(fig, ax, spec, pretty(x), ylabel, path)


def speedups(rows, y, series, x, base):
    """{(series value, x value): baseline y / y}. Points with the same seed ran on the same
    random draws (a sweep's `random_draws: common`, the default), so the ratio is taken per
    seed, pair by pair, and its median plotted; without common seeds, the ratio of medians."""
    by_seed = {}
    for r in rows:
        by_seed.setdefault((r[series], r[x]), {}).setdefault(r.get("seed"), []).append(float(r[y]))
    out = {}
    for (s, xv), runs in by_seed.items():
        base_runs = by_seed.get((base, xv))
        if s == base or not base_runs:
            continue
        paired = [statistics.median(base_runs[k]) / statistics.median(v)
                  for k, v in runs.items() if k in base_runs and statistics.median(v)]
        if paired:
            out[s, xv] = statistics.median(paired)
            continue
        num = statistics.median([v for vs in base_runs.values() for v in vs])
        den = statistics.median([v for vs in runs.values() for v in vs])
        if num and den:
            out[s, xv] = num / den
    return out


def plot_speedup(sweep, spec, path):
    x, y, series = required(sweep, spec, "x", "y", "series")
    if spec.get("baseline") in (None, ""):
        raise BadInput(f"{name(spec)}: missing key 'baseline'")
    base = str(spec["baseline"])
    rows = sweep.select(spec.get("where"), x, y)
    values = ordered([r[series] for r in rows], series)
    base_match = [v for v in values if same(v, base)]
    if not base_match:
        raise BadInput(f"baseline '{base}' is not a value of series '{series}' in the selected "
                       f"rows; values: " + ", ".join(values))
    base = base_match[0]
    xs = ordered([r[x] for r in rows], x)
    ratio = speedups(rows, y, series, x, base)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    pos = set_x_axis(ax, x, xs, truthy(spec.get("logx"), default=is_bytes(x)))
    ax.axhline(1.0, color="black", linestyle="--", linewidth=1,
               label=f"{value_label(series, base)} (baseline)")
    for i, s in enumerate(values):  # styled by position among all values, as `lines` does
        if s == base:
            continue
        pts = [(pos[xv], ratio[s, xv]) for xv in xs if (s, xv) in ratio]
        if pts:
            ax.plot(*zip(*pts), label=value_label(series, s), **series_style(i))
    ax.legend(title=pretty(series), fontsize=8)
    finish(fig, ax, spec, pretty(x),
           f"speedup over {value_label(series, base)} ({pretty(y)})", path)


def plot_heatmap(sweep, spec, path):
    x, y, v = required(sweep, spec, "x", "y", "value")
    rows = sweep.select(spec.get("where"), x, y, v)
    xs, ys = ordered([r[x] for r in rows], x), ordered([r[y] for r in rows], y)
    cells = grouped(rows, v, y, x)
    grid = [[statistics.median(cells[yv, xv]) if (yv, xv) in cells else math.nan for xv in xs]
            for yv in ys]
    normalize = choice(spec, "normalize", "none", ("none", "row", "column"))
    if normalize in ("row", "column"):
        cells = grid if normalize == "row" else list(map(list, zip(*grid)))
        for line in cells:
            low = min((c for c in line if not math.isnan(c)), default=math.nan)
            line[:] = [c / low if low else math.nan for c in line]
        grid = cells if normalize == "row" else list(map(list, zip(*cells)))
        f, label, fmt = 1.0, f"{pretty(v)} / {normalize} minimum", "{:.2f}×"
    else:
        f, label = y_scale(v, [c for line in grid for c in line if not math.isnan(c)])
        fmt = "{:.3g}"
    grid = [[c / f for c in line] for line in grid]
    fig, ax = plt.subplots(figsize=(max(5, 1.1 * len(xs) + 2.5), max(3.5, 0.55 * len(ys) + 1.8)))
    im = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
    lo, hi = im.get_clim()
    for i, line in enumerate(grid):
        for j, c in enumerate(line):
            if not math.isnan(c):
                dark = hi == lo or (c - lo) / (hi - lo) < 0.6
                ax.text(j, i, fmt.format(c), ha="center", va="center", fontsize=8,
                        color="white" if dark else "black")
    ax.set_xticks(range(len(xs)))
    ax.set_xticklabels([value_label(x, a) for a in xs])
    ax.set_yticks(range(len(ys)))
    ax.set_yticklabels([value_label(y, a) for a in ys])
    fig.colorbar(im, ax=ax, label=label)
    ax.set_xlabel(spec.get("xlabel", pretty(x)))
    ax.set_ylabel(spec.get("ylabel", pretty(y)))
    ax.set_title(spec.get("title") or pretty(v))
    save(fig, path)


def bars(ax, names, series, logy):
    """Grouped bars: names (category labels), series [(label, colour, [values per category])];
    the median of each value list, min-max error bars."""
    width = 0.8 / len(series)
    for k, (label, color, lists) in enumerate(series):
        pts = [(i + (k - (len(series) - 1) / 2) * width, *spread(v))
               for i, v in enumerate(lists) if v]
        px, med, lo, hi = zip(*pts) if pts else ((), (), (), ())
        err = [[m - a for m, a in zip(med, lo)], [b - m for m, b in zip(med, hi)]]
        ax.bar(px, med, width, label=label, color=color, capsize=2,
               yerr=err if any(map(any, err)) else None)
    slant = max(map(len, names)) > 8
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30 if slant else 0, ha="right" if slant else "center")
    if logy:
        log_y(ax)
    ax.grid(True, axis="y", alpha=0.3)


def plot_links(sweep, spec, path):
    metric = choice(spec, "metric", "messages", ("messages", "packets"))
    cols = [f"traversals.{c}.{metric}" for c in CLASSES]
    for c in cols:
        sweep.need(c, "column")
    x = spec.get("x") or "point"  # without x: one bar group per point
    sweep.need(x, "x")
    rows = sweep.select(spec.get("where"), *cols)
    series, values = series_groups(sweep, rows, spec)
    cats = ordered([r[x] for r in rows], x)
    if x != "point":
        names, xlabel = [value_label(x, c) for c in cats], pretty(x)
    else:
        params = [p for p in sweep.parameters if p in sweep.columns and p != series]
        row_of = {r["point"]: r for r in rows}
        names = [", ".join(value_label(p, row_of[c][p]) for p in params) or f"point {c}"
                 for c in cats]
        xlabel = ", ".join(pretty(p) for p in params) or "point"
    data = {c: grouped(rows, c, x, series) for c in cols}
    logy, ylabel = truthy(spec.get("logy")), f"link traversals ({metric})"
    if series is None:
        fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(cats) + 2), 4.5))
        bars(ax, names, [(f"{cls} links", CLASS_COLORS[cls],
                          [data[col].get((c, None), []) for c in cats])
                         for cls, col in zip(CLASSES, cols)], logy)
        ax.legend(fontsize=8, ncol=3, loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
        ax.set_title(spec.get("title", ""), pad=22)  # above the legend
        finish(fig, ax, dict(spec, title=None), xlabel, ylabel, path)
        return
    panel_w = min(6.0, max(3.6, 0.15 * len(cats) * len(values) + 1.2))
    fig, axes = plt.subplots(1, 3, figsize=(3 * panel_w, 4.2))
    cmap = plt.get_cmap("tab10")
    for ax, cls, col in zip(axes, CLASSES, cols):
        bars(ax, names, [(value_label(series, s), cmap(i % 10),
                          [data[col].get((c, s), []) for c in cats])
                         for i, s in enumerate(values)], logy)
        ax.set_title(f"{cls} links")
        ax.set_xlabel(spec.get("xlabel", xlabel))
    axes[0].set_ylabel(spec.get("ylabel", ylabel))
    axes[-1].legend(title=pretty(series), fontsize=8)
    if spec.get("title"):
        fig.suptitle(spec["title"])
    save(fig, path)


def plot_dragonfly(sweep, spec, path, results=None):
    """results: [(title, result.json dict)] given directly (ad hoc --result)."""
    if results is None:
        where = dict(spec.get("where") or {})
        if spec.get("point") is not None:
            where["point"] = spec["point"]
        rows = sweep.select(where)
        panels = spec.get("panels")
        if panels:
            sweep.need(panels, "panels")
            picked = []
            for v in ordered([r[panels] for r in rows], panels):
                row = next(r for r in rows if r[panels] == v)
                picked.append((value_label(panels, v), row))
        else:
            if len(rows) > 16:
                raise BadInput(f"{name(spec)}: {len(rows)} points match; narrow 'where' or set "
                               "'panels' (at most 16 panels)")
            params = [k for k in sweep.parameters if k in sweep.columns]
            picked = [(", ".join(value_label(k, r[k]) for k in params) or f"point {r['point']}", r)
                      for r in rows]
        files = [(t, os.path.join(sweep.point_dir(row), "result.json")) for t, row in picked]
        missing = [f for _, f in files if not os.path.exists(f)]
        if missing:
            raise NeedsPointFiles(f"{name(spec)}: {missing[0]} is gone ({len(missing)} of "
                                  f"{len(files)} missing: results.csv alone holds the points); "
                                  "run those points again to draw it")
        results = [(t, dragonfly.load_link_traffic(f)) for t, f in files]
    dragonfly.draw_panels(results, spec, path)


PLOTTERS = {"lines": plot_lines, "speedup": plot_speedup, "heatmap": plot_heatmap,
            "links": plot_links, "dragonfly": plot_dragonfly}


def run_spec(sweep, spec, out_dir, index):
    kind = spec.get("kind")
    if kind not in PLOTTERS:
        raise BadInput(f"plot {index}: kind = '{kind}' is not valid; allowed: " + ", ".join(KINDS))
    path = os.path.join(out_dir, spec.get("file") or f"{index:02d}-{kind}.png")
    PLOTTERS[kind](sweep, spec, path)
    print(path)


# ---- command line ----------------------------------------------------------------------------

def adhoc(kind, argv):
    ap = argparse.ArgumentParser(prog=f"plot_sweep.py {kind}", description=f"one '{kind}' plot")
    ap.add_argument("out", nargs="?", help="the sweep output directory")
    ap.add_argument("--out", dest="file", help="PNG to write (default OUT/plots/<kind>.png)")
    ap.add_argument("--where", action="append", metavar="KEY=VALUE")
    for k in ("x", "y", "series", "value", "baseline", "metric", "panels", "normalize", "title",
              "xlabel", "ylabel", "point"):
        ap.add_argument("--" + k)
    ap.add_argument("--logx", action=argparse.BooleanOptionalAction, default=None)
    ap.add_argument("--logy", action=argparse.BooleanOptionalAction, default=None)
    if kind == "dragonfly":
        ap.add_argument("--result", action="append", help="a result.json (repeatable)")
    a = ap.parse_args(argv)
    spec = {k: v for k, v in vars(a).items() if v is not None and k not in ("out", "result")}
    spec["kind"] = kind
    for it in a.where or []:
        if "=" not in it:
            raise BadInput(f"--where '{it}' is not key=value")
    spec["where"] = dict(it.split("=", 1) for it in a.where or [])
    if kind == "dragonfly" and a.result:
        path = a.file or "dragonfly.png"
        results = [dragonfly.load_link_traffic(r) for r in a.result]
        cs = [r.get("collective", {}) for r in results]
        titles = [c.get("algorithm", "?") + (f", {size_label(c['bytes'])}" if "bytes" in c else "")
                  for c in cs]
        plot_dragonfly(None, spec, path, list(zip(titles, results)))
        print(path)
        return
    if not a.out:
        ap.error("the sweep output directory OUT is required" +
                 (" (or --result)" if kind == "dragonfly" else ""))
    sweep = Sweep(a.out)
    path = a.file or os.path.join(a.out, "plots", f"{kind}.png")
    PLOTTERS[kind](sweep, spec, path)
    print(path)


def study_plots(argv):
    ap = argparse.ArgumentParser(
        prog="plot_sweep.py", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="ad hoc: plot_sweep.py {" + ",".join(KINDS) + "} OUT --help")
    ap.add_argument("out", help="the sweep output directory (results.csv, study.json)")
    ap.add_argument("--out-dir", help="where to write the PNGs (default OUT/plots)")
    a = ap.parse_args(argv)
    sweep = Sweep(a.out)
    plots = sweep.study.get("plots")
    if not plots:
        raise BadInput(f"{os.path.join(a.out, 'study.json')} has no 'plots'; add a plots list "
                       f"to the study or use an ad-hoc kind: {', '.join(KINDS)}")
    out_dir = a.out_dir or os.path.join(a.out, "plots")
    failed = waiting = 0
    for i, spec in enumerate(plots):
        try:
            if not isinstance(spec, dict):
                raise BadInput(f"plot {i} is not an object with kind and file")
            run_spec(sweep, spec, out_dir, i)
        except NeedsPointFiles as e:
            print(f"plot_sweep.py: note: plot {i} is not drawn: {e}", file=sys.stderr)
            waiting += 1
        except BadInput as e:
            pending = sweep.pending_rows(spec.get("where") if isinstance(spec, dict) else None)
            if pending:
                print(f"plot_sweep.py: note: plot {i} waits for {pending} points not run yet ({e})",
                      file=sys.stderr)
                waiting += 1
            else:
                print(f"plot_sweep.py: error: {e}", file=sys.stderr)
                failed += 1
    if failed:
        sys.exit(2)
    if waiting:
        sys.exit(3)


def main(argv):
    try:
        if argv and argv[0] in KINDS:
            adhoc(argv[0], argv[1:])
        else:
            study_plots(argv)
    except BadInput as e:
        print(f"plot_sweep.py: error: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv[1:])
