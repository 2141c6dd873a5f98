"""Axes and titles of the sweep plots (scripts/plot_sweep.py): which x values get a label,
every series its own style, readable log axes, titles that fit the PNG."""
import math
import textwrap

from matplotlib import ticker


def spaced_ticks(nums, logx, min_gap=0.07):
    """Indices of the x values to label: neighbours closer than min_gap of the axis's span
    (64 and 128 on a log axis from 1 to 2^27) lose a label, the last value keeps its own."""
    order = sorted(range(len(nums)), key=lambda i: nums[i])
    pos = [math.log(nums[i]) if logx and nums[i] > 0 else float(nums[i]) for i in order]
    span = (pos[-1] - pos[0]) or 1.0
    kept = [0]
    for k in range(1, len(order)):
        if pos[k] - pos[kept[-1]] >= min_gap * span:
            kept.append(k)
        elif k == len(order) - 1 and len(kept) > 1:
            kept[-1] = k  # the largest value keeps its label; its close neighbour gives way
    return [order[k] for k in kept]


# Every series its own colour, marker and line style, hollow every other one and a little
# smaller each time: a series whose values equal another's (binomial and GLF at some sizes)
# still shows beside it instead of hiding under it. 11 markers and 6 styles: 66 series differ.
MARKERS = "osD^vP*Xph<"
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)))


def series_style(i):
    """matplotlib keyword arguments of the i-th series of a plot."""
    return dict(color=f"C{i % 10}", marker=MARKERS[i % len(MARKERS)],
                linestyle=LINESTYLES[i % len(LINESTYLES)], ms=7 - i % 4,
                fillstyle="full" if i % 2 == 0 else "none")


def plain_number(v, _pos=None):
    """0.5, 20, 5,000, 2,000,000: never 1e+06 beside 200000."""
    return f"{v:,.0f}" if v >= 1000 else f"{v:g}"


def log_y(ax):
    """A log y axis that can be read: over less than three decades every 1, 2 and 5 is labelled
    in plain numbers (matplotlib's default labels only the powers of ten, so an axis from 0.3 to
    6 shows one label, 10^0)."""
    ax.set_yscale("log")
    lo, hi = ax.get_ylim()
    if 0 < lo and hi / lo < 1e3:
        ax.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(plain_number))
        ax.yaxis.set_minor_formatter(ticker.NullFormatter())


def fit_titles(fig):
    """Lays the figure out, wrapping any title too wide for the PNG (else cut off at its edge)
    at the width it has room for, measured on the rendered text."""
    fig.tight_layout()
    renderer = fig.canvas.get_renderer()
    titles = [ax.title for ax in fig.axes] + [getattr(fig, "_suptitle", None)]
    wrapped = False
    for t in titles:
        if t is None or not t.get_text():
            continue
        box = t.get_window_extent(renderer)
        centre = (box.x0 + box.x1) / 2
        room = 0.96 * 2 * min(centre, fig.bbox.width - centre)  # a title stays centred
        if box.width <= room:
            continue
        lines = t.get_text().split("\n")
        chars = max(20, int(max(map(len, lines)) * room / box.width))
        t.set_text("\n".join(textwrap.fill(line, chars) for line in lines))
        wrapped = True
    if wrapped:
        fig.tight_layout()
