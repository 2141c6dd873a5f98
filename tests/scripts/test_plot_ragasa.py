#!/usr/bin/env python3
"""scripts/plot_ragasa.py's tables with every node broadcasting lead with the headline (the mean
over the broadcasts of each one's data completion from its own start) and its speedup, with
Ragasa's set-up beside it; results from before those columns fall back to the span and say so;
the buffer check and the ensemble use the headline.

  python3 tests/scripts/test_plot_ragasa.py       # exit 77 (skipped) without matplotlib

Fake results.csv files (the columns the tables read), so nothing is simulated.
"""
import contextlib
import csv
import importlib.util
import io
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "plot_ragasa.py")
try:
    import matplotlib  # noqa: F401  (the script imports it)
    HAVE_MATPLOTLIB = True
except ImportError:
    HAVE_MATPLOTLIB = False

DATA = "collective.broadcasts.data_completion_ns.mean"
NEW = [DATA, "collective.broadcasts.data_completion_ns.max",
       "collective.broadcasts.rank_average_ns.mean", "ragasa.broadcasts.setup_ns.mean",
       "ragasa.broadcasts.setup_ns.max"]


def load():
    spec = importlib.util.spec_from_file_location("plot_ragasa", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def write(path, rows, columns):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c, "") for c in columns})


def readings_rows(with_new):
    """binomial and ragasa (both relays) at 16 KiB, one root and all nodes. All nodes: the span
    is 1,000,000 (binomial) and 500,000 (ragasa, nodes), the per-broadcast means 800,000 and
    200,000: a 2.00x span ratio and a 4.00x headline ratio."""
    rows = []
    for roots in ("one", "all"):
        for alg, relay, span, data, setup in (("binomial", "node", 1e6, 8e5, None),
                                              ("ragasa", "node", 5e5, 2e5, 3e4),
                                              ("ragasa", "unit", 4e5, 1e5, 5e4)):
            r = {"collective.algorithm": alg, "ragasa.relay": relay, "collective.roots": roots,
                 "collective.bytes": "16384", "status": "ok",
                 "collective.completion_ns": str(span if roots == "all" else span / 10)}
            if with_new and roots == "all":
                r.update({DATA: str(data), "collective.broadcasts.data_completion_ns.max":
                          str(data * 1.5), "collective.broadcasts.rank_average_ns.mean":
                          str(data / 2)})
                if setup:
                    r.update({"ragasa.broadcasts.setup_ns.mean": str(setup),
                              "ragasa.broadcasts.setup_ns.max": str(2 * setup)})
            rows.append(r)
    return rows


@unittest.skipUnless(HAVE_MATPLOTLIB, "needs matplotlib (Debian: python3-matplotlib)")
class readings_tables(unittest.TestCase):
    def tables(self, with_new):
        mod = load()
        with tempfile.TemporaryDirectory() as res:
            cols = ["point", "collective.algorithm", "ragasa.relay", "collective.roots",
                    "collective.bytes", "status", "collective.completion_ns"]
            write(os.path.join(res, "readings", "results.csv"), readings_rows(with_new),
                  cols + (NEW if with_new else []))
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                mod.print_readings_tables(res)
            return out.getvalue()

    def test_all_nodes_lead_with_the_mean_broadcast_and_its_speedup(self):
        text = self.tables(True)
        b = text[text.index("(b)"):]
        self.assertIn("data completion from its own start", b.splitlines()[0])
        row = next(line for line in b.splitlines() if line.startswith("| 16 KiB"))
        # binomial 800,000 against ragasa 200,000 (nodes) and 100,000 (units)
        self.assertEqual(row.split(" | ")[1:6],
                         ["800,000.0", "200,000.0", "4.00x", "100,000.0", "8.00x"])
        setup = text[text.index("set-up beside its data"):]
        node = next(line for line in setup.splitlines() if "| node |" in line)
        self.assertEqual(node.split(" | ")[2:9], ["200,000.0", "300,000.0", "100,000.0",
                                                  "30,000.0", "60,000.0", "500,000.0",
                                                  "1,000,000.0 |"])

    def test_results_from_before_the_columns_show_the_span_and_say_so(self):
        text = self.tables(False)
        b = text[text.index("(b)"):]
        self.assertIn("from before the per-broadcast columns", b.splitlines()[0])
        row = next(line for line in b.splitlines() if line.startswith("| 16 KiB"))
        self.assertEqual(row.split(" | ")[1:4], ["1,000,000.0", "500,000.0", "2.00x"])
        setup = text[text.index("set-up beside its data"):]
        node = next(line for line in setup.splitlines() if "| node |" in line)
        self.assertEqual(node.split(" | ")[2], "-")

    def test_one_root_is_completion(self):
        text = self.tables(True)
        a = text[text.index("(a)"):text.index("(b)")]
        row = next(line for line in a.splitlines() if line.startswith("| 16 KiB"))
        self.assertEqual(row.split(" | ")[1:4], ["100,000.0", "50,000.0", "2.00x"])


@unittest.skipUnless(HAVE_MATPLOTLIB, "needs matplotlib (Debian: python3-matplotlib)")
class headline(unittest.TestCase):
    def test_the_headline_is_the_mean_broadcast_where_the_results_have_it(self):
        mod = load()
        self.assertEqual(mod.headline({"collective.completion_ns": "9", DATA: "4"}), 4.0)
        self.assertEqual(mod.headline({"collective.completion_ns": "9", DATA: ""}), 9.0)
        self.assertEqual(mod.headline({"collective.completion_ns": "9"}), 9.0)

    def test_the_ensemble_takes_the_headline_first(self):
        mod = load()
        with tempfile.TemporaryDirectory() as res:
            rows = []
            for overhead, data in ((290, 100.0), (300, 110.0)):
                rows.append({"ragasa.descriptor_threshold_bytes": "4096",
                             "ragasa.rx_queue_packets": "8", "ragasa.working_memory_bytes": "4096",
                             "host.send_overhead_ns": str(overhead), "status": "ok",
                             "collective.completion_ns": "500",
                             "collective.rank_completion_ns_avg": "300", DATA: str(data)})
            write(os.path.join(res, "buffers-ensemble", "results.csv"), rows, list(rows[0]))
            groups = mod.ensemble(res)
            values, failed = groups[(4096, 8, 4096)]
            self.assertEqual(mod.ENSEMBLE_METRICS[0][0], DATA)
            self.assertEqual(values[0], [100.0, 110.0])
            self.assertEqual(values[1], [500.0, 500.0])
            self.assertEqual(failed, 0)


if __name__ == "__main__":
    if not HAVE_MATPLOTLIB:
        print("skipped: needs matplotlib (Debian: apt-get install python3-matplotlib)")
        sys.exit(77)
    unittest.main()
