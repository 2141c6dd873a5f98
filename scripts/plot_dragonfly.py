"""The dragonfly traffic picture of the topology-aware broadcast paper (Dorier et al., Cluster
2016, Fig. 4) from result.json `link_traffic` (bcastsim run --set output.link_traffic=on):
terminals on a circle by group and router, the job's ranks and root marked, every global link
that carried messages as a chord. Used by plot_sweep.py (kind `dragonfly`).
"""
import json
import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import PathPatch  # noqa: E402
from matplotlib.path import Path  # noqa: E402


class BadInput(Exception):
    """Bad input: reported on stderr, exit code 2 (plot_sweep.py uses this class too)."""


def load_link_traffic(path):
    try:
        with open(path) as f:
            r = json.load(f)
    except (OSError, ValueError) as e:
        raise BadInput(f"cannot read {path}: {e}")
    if "link_traffic" not in r:
        raise BadInput(f"{path} has no 'link_traffic': run with --set output.link_traffic=on "
                       "(in a study: set: {output.link_traffic: on})")
    return r


def global_links(r):
    return [l for l in r["link_traffic"]["links"] if l["class"] == "global" and l["messages"] > 0]


def draw_dragonfly(ax, r, title, top):
    """One panel; chord width and opacity grow with messages up to `top`."""
    lt = r["link_traffic"]
    g, a, p = lt["groups"], lt["routers_per_group"], lt["terminals_per_router"]
    n = g * a * p
    gap = max(1.0, 0.15 * a * p)  # empty slots between groups

    def angle(slot):  # slot: terminal index, fractional for a router's centre
        group = int(slot // (a * p))
        return math.pi / 2 - 2 * math.pi * (slot + group * gap + 0.5) / (n + g * gap)

    def at(radius, th):
        return radius * math.cos(th), radius * math.sin(th)

    colors = plt.get_cmap("tab10" if g <= 10 else "tab20" if g <= 20 else "hsv")
    gcolor = [colors(i % 10 if g <= 10 else i % 20 if g <= 20 else i / g) for i in range(g)]
    for grp in range(g):  # group arcs and labels
        first, last = grp * a * p, (grp + 1) * a * p - 1
        ths = [angle(first) + (angle(last) - angle(first)) * k / 40 for k in range(41)]
        ax.plot([1.1 * math.cos(t) for t in ths], [1.1 * math.sin(t) for t in ths],
                color=gcolor[grp], lw=4, solid_capstyle="butt")
        step = math.ceil(g / 32)  # at most 32 labels; none crowding g0 at the end
        if grp % step == 0 and (step == 1 or grp + step <= g):
            lx, ly = at(1.24, angle((first + last) / 2))
            ax.text(lx, ly, f"g{grp}", ha="center", va="center", fontsize=7, color=gcolor[grp])
    ranks = set(lt["ranks_terminals"])
    dot = max(0.5, min(12, 3000 / n))
    others = [at(1.0, angle(t)) for t in range(n) if t not in ranks]
    job = [at(1.0, angle(t)) for t in sorted(ranks)]
    if others:
        ax.scatter(*zip(*others), s=dot, color="#d0d0d0", linewidths=0, zorder=2)
    if job:
        ax.scatter(*zip(*job), s=dot * 1.6, color="black", linewidths=0, zorder=3)
    if lt.get("root_terminal") is not None:
        ax.scatter(*at(1.0, angle(lt["root_terminal"])), s=max(60, dot * 6), marker="*",
                   color="red", zorder=5)
    if g * a <= 400:  # router ticks just inside the circle
        rx = [at(0.93, angle(rt * p + (p - 1) / 2)) for rt in range(g * a)]
        ax.scatter(*zip(*rx), s=4, marker="s", color="#909090", linewidths=0, zorder=2)
    glinks = global_links(r)
    thin = min(1.0, 10 / math.sqrt(max(1, len(glinks))))  # many chords: thinner, fainter
    for l in sorted(glinks, key=lambda l: l["messages"]):
        p0 = at(0.93, angle(l["from_router"] * p + (p - 1) / 2))
        p1 = at(0.93, angle(l["to_router"] * p + (p - 1) / 2))
        ctrl = (0.12 * (p0[0] + p1[0]), 0.12 * (p0[1] + p1[1]))
        w = l["messages"] / top
        ax.add_patch(PathPatch(Path([p0, ctrl, p1], [Path.MOVETO, Path.CURVE3, Path.CURVE3]),
                               facecolor="none", edgecolor=gcolor[l["from_router"] // a],
                               lw=(0.6 + 2.4 * w) * thin, zorder=4,
                               alpha=(0.35 + 0.55 * w) * (0.5 + thin / 2)))
    msgs = sum(l["messages"] for l in glinks)
    ax.set_title(f"{title}\n{msgs} global-link messages on {len(glinks)} global links",
                 fontsize=10, pad=0)
    ax.set_xlim(-1.32, 1.32)
    ax.set_ylim(-1.32, 1.32)
    ax.set_aspect("equal")
    ax.axis("off")


def dragonfly_legend(fig, top, ncol):
    handles = [
        Line2D([], [], marker="*", color="red", linestyle="", ms=10, label="root"),
        Line2D([], [], marker="o", color="black", linestyle="", ms=4, label="job's ranks"),
        Line2D([], [], marker="o", color="#d0d0d0", linestyle="", ms=4, label="other terminals"),
        Line2D([], [], color="grey", lw=3, label="global link (colour: sending group), "
               f"{top} message{'s' if top != 1 else ''}; thinner: fewer"),
    ]
    fig.legend(handles=handles, loc="lower center", ncol=ncol, fontsize=8, frameon=False)


def draw_panels(results, spec, path):
    """results: [(title, result.json dict)], one panel each, into the PNG at path."""
    cols = min(len(results), 4 if len(results) in (4, 7, 8) else 3)
    nrows = math.ceil(len(results) / cols)
    legend_h = 0.5 if cols > 1 else 0.75  # inches; two legend rows under a single panel
    fig, axes = plt.subplots(nrows, cols, figsize=(max(5.5, 4.3 * cols), 4.9 * nrows + legend_h),
                             squeeze=False)
    top = max([1] + [l["messages"] for _, res in results for l in global_links(res)])
    for ax, (title, res) in zip(axes.flat, results):
        draw_dragonfly(ax, res, title, top)
    for ax in list(axes.flat)[len(results):]:
        ax.axis("off")
    dragonfly_legend(fig, top, 4 if cols > 1 else 2)
    if spec.get("title"):
        fig.suptitle(spec["title"])
    fig.subplots_adjust(left=0.01, right=0.99, wspace=0.05, hspace=0.22,
                        bottom=legend_h / fig.get_figheight(),
                        top=1 - (0.75 if spec.get("title") else 0.45) / fig.get_figheight())
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=150)
    plt.close(fig)
