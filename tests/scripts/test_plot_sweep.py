#!/usr/bin/env python3
"""scripts/plot_sweep.py on a small fake sweep directory: every plot kind, from the study's plot
list and ad hoc, writes a valid PNG; bad input exits 2 naming the key.

  python3 tests/scripts/test_plot_sweep.py        # exit 77 (skipped) without matplotlib
  python3 -m unittest tests/scripts/test_plot_sweep.py

The fixtures are real result.json files of `bcastsim run` (df72, 32 random ranks, 16 KiB,
output.link_traffic=on), trimmed to the sections the plots read.
"""
import csv
import importlib.util
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "plot_sweep.py")
FIXTURES = os.path.join(HERE, "fixtures")
try:
    import matplotlib  # noqa: F401  (the script's one dependency beyond the standard library)
    HAVE_MATPLOTLIB = True
except ImportError:
    HAVE_MATPLOTLIB = False

PARAMS = ["collective.algorithm", "collective.bytes"]
COLUMNS = ["collective.completion_ns", "sim_time_ns", "packets.hops_avg",
           "traversals.terminal.messages", "traversals.local.messages",
           "traversals.global.messages", "traversals.terminal.packets",
           "traversals.local.packets", "traversals.global.packets",
           "ragasa.units.memory_stall_ns"]
PLOTS = [
    {"kind": "lines", "file": "lines.png", "x": "collective.bytes", "y": "collective.completion_ns",
     "series": "collective.algorithm", "title": "completion"},
    {"kind": "speedup", "file": "speedup.png", "x": "collective.bytes",
     "y": "collective.completion_ns", "series": "collective.algorithm", "baseline": "binomial"},
    {"kind": "heatmap", "file": "heatmap.png", "x": "collective.bytes",
     "y": "collective.algorithm", "value": "collective.completion_ns", "normalize": "row"},
    {"kind": "links", "file": "links.png", "x": "collective.algorithm",
     "where": {"collective.bytes": 16384}},
    {"kind": "links", "file": "links_series.png", "x": "collective.bytes",
     "series": "collective.algorithm", "metric": "packets", "logy": True},
    {"kind": "dragonfly", "file": "dragonfly.png", "where": {"collective.bytes": 16384},
     "panels": "collective.algorithm"},
]


def png_size(path):
    """(width, height) of a PNG whose signature, chunk CRCs, IHDR and final IEND are valid."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise AssertionError(f"{path}: no PNG signature")
    pos, chunks = 8, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) != crc:
            raise AssertionError(f"{path}: bad CRC in chunk {kind!r}")
        chunks.append((kind, body))
        pos += 12 + length
    if chunks[0][0] != b"IHDR" or chunks[-1] != (b"IEND", b"") or pos != len(data):
        raise AssertionError(f"{path}: must start with IHDR and end with IEND")
    return struct.unpack(">II", chunks[0][1][:8])


def make_sweep(out):
    """2 algorithms x 3 sizes x 2 replicates, and one failed point; dragonfly data at 16 KiB."""
    os.makedirs(out)
    rows, points = [], []
    fixture = {}
    for a in ("binomial", "forest"):
        with open(os.path.join(FIXTURES, f"result_{a}_df72.json")) as f:
            fixture[a] = json.load(f)
    for algo in ("binomial", "forest"):
        for size in (1024, 16384, 131072):
            for rep in range(2):
                i = len(rows)
                d = f"points/{i:04d}"
                os.makedirs(os.path.join(out, d))
                r = fixture[algo]
                with open(os.path.join(out, d, "result.json"), "w") as f:
                    json.dump(r, f)
                t = r["traversals"]
                scale = size / 16384
                row = {"point": i, "collective.algorithm": algo, "collective.bytes": size,
                       "replicate": rep, "seed": 100 + i, "status": "ok", "exit_code": 0,
                       "collective.completion_ns": (5000 + 1.5 * size) * (1.3 if algo ==
                                                   "binomial" else 1.0) * (1 + 0.02 * rep),
                       "sim_time_ns": 6000 + 1.6 * size, "packets.hops_avg": 1.8,
                       "ragasa.units.memory_stall_ns": "", "error": ""}
                for cls in ("terminal", "local", "global"):
                    row[f"traversals.{cls}.messages"] = t[cls]["messages"]
                    row[f"traversals.{cls}.packets"] = round(t[cls]["packets"] * scale)
                rows.append(row)
                points.append({"index": i, "dir": d, "seed": 100 + i,
                               "values": {"collective.algorithm": algo,
                                          "collective.bytes": str(size)}})
    i = len(rows)  # a failed point: empty result cells, no result.json
    rows.append({"point": i, "collective.algorithm": "glf", "collective.bytes": 16384,
                 "replicate": 0, "seed": 999, "status": "failed", "exit_code": 1,
                 "error": "stalled"})
    points.append({"index": i, "dir": f"points/{i:04d}", "seed": 999,
                   "values": {"collective.algorithm": "glf", "collective.bytes": "16384"}})
    header = ["point"] + PARAMS + ["replicate", "seed", "status", "exit_code"] + COLUMNS + ["error"]
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, header, restval="")
        w.writeheader()
        w.writerows(rows)
    study = {"schema": "bcastsim.sweep/1", "name": "fake", "parameters": PARAMS,
             "columns": COLUMNS, "plots": PLOTS, "points": points}
    with open(os.path.join(out, "study.json"), "w") as f:
        json.dump(study, f)


@unittest.skipUnless(HAVE_MATPLOTLIB, "matplotlib is missing (Debian: python3-matplotlib)")
class PlotSweep(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="plot_sweep_")
        cls.out = os.path.join(cls.tmp, "sweep")
        make_sweep(cls.out)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def run_script(self, *args):
        p = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                           timeout=300)
        return p.returncode, p.stdout, p.stderr

    def assert_png(self, path):
        self.assertTrue(os.path.isfile(path), path)
        w, h = png_size(path)
        self.assertGreater(w, 0)
        self.assertGreater(h, 0)
        return w, h

    def assert_bad(self, args, *named):
        code, _, err = self.run_script(*args)
        self.assertEqual(code, 2, f"{args}: {err}")
        for text in named:
            self.assertIn(text, err, args)

    def test_study_plots_every_kind(self):
        code, out, err = self.run_script(self.out)
        self.assertEqual(code, 0, err)
        written = out.split()
        self.assertEqual(written, [os.path.join(self.out, "plots", p["file"]) for p in PLOTS])
        for path in written:
            self.assert_png(path)
        w, h = self.assert_png(os.path.join(self.out, "plots", "dragonfly.png"))
        self.assertGreater(w, h)  # two panels side by side

    def test_out_dir(self):
        d = os.path.join(self.tmp, "elsewhere")
        code, out, err = self.run_script(self.out, "--out-dir", d)
        self.assertEqual(code, 0, err)
        self.assertEqual(sorted(os.listdir(d)), sorted(p["file"] for p in PLOTS))

    def test_adhoc_every_kind(self):
        base = ["--x", "collective.bytes", "--y", "collective.completion_ns",
                "--series", "collective.algorithm"]
        cases = {
            "lines": base + ["--no-logx", "--where", "replicate=0"],
            "speedup": base + ["--baseline", "binomial"],
            "heatmap": ["--x", "collective.algorithm", "--y", "collective.bytes",
                        "--value", "sim_time_ns"],
            "links": ["--where", "collective.algorithm=forest"],  # one bar group per point
            "dragonfly": ["--point", "3"],
        }
        for kind, args in cases.items():
            path = os.path.join(self.tmp, f"adhoc_{kind}.png")
            code, out, err = self.run_script(kind, self.out, *args, "--out", path)
            self.assertEqual(code, 0, f"{kind}: {err}")
            self.assertEqual(out.strip(), path)
            self.assert_png(path)

    def test_dragonfly_from_result_files(self):
        path = os.path.join(self.tmp, "results.png")
        code, out, err = self.run_script(
            "dragonfly", "--result", os.path.join(FIXTURES, "result_binomial_df72.json"),
            "--result", os.path.join(FIXTURES, "result_forest_df72.json"), "--out", path)
        self.assertEqual(code, 0, err)
        self.assert_png(path)

    def test_bad_input_exits_2_naming_the_key(self):
        out = self.out
        self.assert_bad(["lines", out, "--x", "collective.bytez", "--y", "sim_time_ns"],
                        "collective.bytez", "not a column")
        self.assert_bad(["lines", out, "--x", "collective.bytes"], "missing key 'y'")
        self.assert_bad(["lines", out, "--x", "collective.bytes", "--y", "sim_time_ns",
                         "--where", "collective.algorithm=hypercube"],
                        "collective.algorithm=hypercube", "no successful rows")
        # the only glf point failed: skipped, so nothing matches
        self.assert_bad(["links", out, "--where", "collective.algorithm=glf"],
                        "collective.algorithm=glf", "no successful rows")
        self.assert_bad(["speedup", out, "--x", "collective.bytes", "--y", "sim_time_ns",
                         "--series", "collective.algorithm", "--baseline", "tree"],
                        "baseline 'tree'", "binomial, forest")
        self.assert_bad(["heatmap", out, "--x", "collective.bytes", "--y",
                         "collective.algorithm", "--value", "ragasa.units.memory_stall_ns"],
                        "ragasa.units.memory_stall_ns", "empty")
        self.assert_bad(["heatmap", out, "--x", "collective.bytes", "--y",
                         "collective.algorithm", "--value", "sim_time_ns", "--normalize", "diag"],
                        "normalize", "allowed: none, row, column")
        self.assert_bad(["links", out, "--metric", "bytes"], "metric", "messages, packets")
        self.assert_bad(["lines", os.path.join(self.tmp, "nowhere"), "--x", "a", "--y", "b"],
                        "results.csv")

    def test_missing_link_traffic_names_the_key(self):
        bare = os.path.join(self.tmp, "bare.json")
        with open(os.path.join(FIXTURES, "result_forest_df72.json")) as f:
            r = json.load(f)
        del r["link_traffic"]
        with open(bare, "w") as f:
            json.dump(r, f)
        self.assert_bad(["dragonfly", "--result", bare, "--out", bare + ".png"],
                        "output.link_traffic=on")
        self.assertFalse(os.path.exists(bare + ".png"))

    def test_study_with_a_bad_plot_writes_the_others_and_exits_2(self):
        out = os.path.join(self.tmp, "partial")
        shutil.copytree(self.out, out)
        study_path = os.path.join(out, "study.json")
        with open(study_path) as f:
            study = json.load(f)
        study["plots"] = [PLOTS[0], dict(PLOTS[1], file="bad.png", y="no.such.column"),
                          {"kind": "pie", "file": "pie.png"}]
        with open(study_path, "w") as f:
            json.dump(study, f)
        code, stdout, err = self.run_script(out)
        self.assertEqual(code, 2)
        self.assertIn("no.such.column", err)
        self.assertIn("kind = 'pie'", err)
        self.assert_png(os.path.join(out, "plots", "lines.png"))
        self.assertFalse(os.path.exists(os.path.join(out, "plots", "bad.png")))

    def test_a_checkout_without_points_leaves_the_dragonfly_plot_as_a_note(self):
        # results.csv alone (bcastsim sweep resumes from it): the other plots are drawn.
        out = os.path.join(self.tmp, "checkout")
        shutil.copytree(self.out, out)
        shutil.rmtree(os.path.join(out, "points"))
        shutil.rmtree(os.path.join(out, "plots"), ignore_errors=True)
        code, stdout, err = self.run_script(out)
        self.assertEqual(code, 3, err)
        self.assertIn("note: plot", err)
        self.assertIn("results.csv alone holds the points", err)
        self.assert_png(os.path.join(out, "plots", "lines.png"))
        self.assertFalse(os.path.exists(os.path.join(out, "plots", "dragonfly.png")))


@unittest.skipUnless(HAVE_MATPLOTLIB, "matplotlib is missing (Debian: python3-matplotlib)")
class Helpers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        sys.dont_write_bytecode = True  # no scripts/__pycache__
        spec = importlib.util.spec_from_file_location("plot_sweep", SCRIPT)
        cls.m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cls.m)

    def test_units_and_order(self):
        m = self.m
        self.assertEqual(m.y_scale("collective.completion_ns", [26121.0]),
                         (1e3, "broadcast completion time (µs)"))
        self.assertEqual(m.y_scale("sim_time_ns", [512.0]), (1.0, "simulated time (ns)"))
        self.assertEqual(m.y_scale("packets.hops_avg", [1.6])[0], 1.0)
        self.assertEqual(m.value_label("collective.bytes", "1048576"), "1 MiB")
        self.assertEqual(m.value_label("router.vc_buffer_bytes.local", "512"), "512 B")
        self.assertEqual(m.ordered(["16384", "1024", "131072", "1024"], "b"),
                         ["1024", "16384", "131072"])
        self.assertEqual(m.ordered(["llf", "glf", "llf"], "a"), ["llf", "glf"])
        self.assertEqual(m.spread([3.0, 1.0, 2.0, 10.0]), (2.5, 1.0, 10.0))

    def test_close_ticks_give_way(self):
        m = self.m
        sizes = [4096 * 4 ** k for k in range(8)] + [134217728]  # 4 KiB .. 64 MiB, 128 MiB
        shown = m.spaced_ticks(sizes, True)
        self.assertIn(8, shown)      # 128 MiB keeps its label
        self.assertNotIn(7, shown)   # 64 MiB, one octave below it, gives way
        self.assertEqual(shown[:7], list(range(7)))
        self.assertEqual(m.spaced_ticks([1, 2, 3, 4], False), [0, 1, 2, 3])
        self.assertEqual(m.spaced_ticks([128, 8192, 10240, 16512], True), [0, 1, 3])

    def test_speedups_pair_runs_by_seed(self):
        m = self.m
        row = lambda a, seed, t: {"a": a, "x": "1", "seed": seed, "t": t}
        # Paired: seed 1 gives 2x, seed 2 gives 3x, seed 3 has no baseline; the median of the
        # pairs is 2.5x (the ratio of the medians would be 200 / 50 = 4x).
        rows = [row("b", "1", 100), row("b", "2", 300), row("f", "1", 50), row("f", "2", 100),
                row("f", "3", 10)]
        self.assertEqual(m.speedups(rows, "t", "a", "x", "b"), {("f", "1"): 2.5})
        # No seed in common (random_draws: per_point): the ratio of the medians.
        rows = [row("b", "1", 100), row("b", "2", 200), row("f", "3", 50), row("f", "4", 100)]
        self.assertEqual(m.speedups(rows, "t", "a", "x", "b"), {("f", "1"): 2.0})

    def test_every_series_has_its_own_marker_and_line_style(self):
        m = self.m
        styles = [m.series_style(i) for i in range(66)]
        self.assertEqual(len({(st["marker"], str(st["linestyle"])) for st in styles}), 66)
        for a, b in zip(styles, styles[1:]):  # neighbours differ in all three
            self.assertNotEqual(a["marker"], b["marker"])
            self.assertNotEqual(a["linestyle"], b["linestyle"])
            self.assertNotEqual(a["color"], b["color"])
        # The lines and speedup plots use them: three series, three markers, three styles.
        tmp = tempfile.mkdtemp(prefix="plot_sweep_styles_")
        try:
            out = os.path.join(tmp, "sweep")
            make_sweep(out)
            sweep = m.Sweep(out)
            sweep.rows = sweep.all_rows  # the failed point's series too (its own y values)
            for r in sweep.rows:
                r["collective.completion_ns"] = r["collective.completion_ns"] or "7000"
            figures = []
            saved = m.save
            m.save = lambda fig, path: figures.append(fig)
            try:
                spec = {"kind": "lines", "x": "collective.bytes", "y": "collective.completion_ns",
                        "series": "collective.algorithm"}
                m.plot_lines(sweep, spec, "unused.png")
                m.plot_speedup(sweep, dict(spec, kind="speedup", baseline="binomial"),
                               "unused.png")
            finally:
                m.save = saved
            for fig, n in zip(figures, (3, 2)):
                handles = fig.axes[0].get_legend_handles_labels()[0]
                lines = [h[0] if isinstance(h, tuple) else h for h in handles]  # errorbar: line
                lines = [ln for ln in lines if ln.get_marker() not in (None, "None", "", " ")]
                self.assertEqual(len(lines), n)
                self.assertEqual(len({ln.get_marker() for ln in lines}), n)
                self.assertEqual(len({str(ln.get_linestyle()) for ln in lines}), n)
        finally:
            shutil.rmtree(tmp)

    def test_long_titles_wrap_inside_the_png(self):
        m = self.m
        title = ("CODES's df72 configuration, CODES's router (output_queued): average chunk "
                 "latency against offered load")
        fig, ax = m.plt.subplots(figsize=(7, 4.5))
        try:
            ax.set_title(title)
            fig.suptitle("short")
            m.fit_titles(fig)
            fig.canvas.draw()
            box = ax.title.get_window_extent()
            self.assertIn("\n", ax.title.get_text())
            self.assertEqual(ax.title.get_text().replace("\n", " "), title)  # words kept
            self.assertGreaterEqual(box.x0, 0)
            self.assertLessEqual(box.x1, fig.bbox.width)
            self.assertEqual(fig._suptitle.get_text(), "short")  # what fits stays one line
        finally:
            m.plt.close(fig)

    def test_narrow_log_axes_label_1_2_5(self):
        m = self.m
        fig, ax = m.plt.subplots()
        try:
            ax.plot([1, 2, 3], [0.27, 1.1, 6.0])  # 0.27 to 6 us: matplotlib labels only 10^0
            m.log_y(ax)
            fig.canvas.draw()
            lo, hi = ax.get_ylim()
            labels = [t.get_text() for t in ax.get_yticklabels()
                      if lo <= t.get_position()[1] <= hi]
            self.assertEqual(labels, ["0.5", "1", "2", "5"])
        finally:
            m.plt.close(fig)
        fig, ax = m.plt.subplots()
        try:
            ax.plot([1, 3], [1e-3, 1e6])  # nine decades: powers of ten only, as matplotlib
            m.log_y(ax)
            self.assertEqual(ax.get_yscale(), "log")
            from matplotlib.ticker import FuncFormatter
            self.assertNotIsInstance(ax.yaxis.get_major_formatter(), FuncFormatter)
        finally:
            m.plt.close(fig)


if __name__ == "__main__":
    if not HAVE_MATPLOTLIB:
        print("skipped: matplotlib is missing (Debian: apt-get install python3-matplotlib)")
        sys.exit(77)
    unittest.main()
