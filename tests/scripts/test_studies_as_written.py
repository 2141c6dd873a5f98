#!/usr/bin/env python3
"""Every committed study runs as its header writes it (issue 18: "each runnable as written").

For each results directory in experiments/ (one with a study.json), the study file it names
must carry, in its header comment, one `bcastsim sweep` command naming that file and `--out`
that directory. The command, with `--list` added, must be accepted (exit 0), and the points it
lists must be the rows of the committed results.csv: the same indices, values and seeds. So a
study edited after its run, a header pointing elsewhere or a command with a typo fails here.
No point is simulated. Standard library only.

Usage: test_studies_as_written.py BCASTSIM"""

import csv
import glob
import json
import os
import re
import shlex
import subprocess
import sys
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BINARY = None  # set from argv


def header_command(study_file):
    """The header's `bcastsim sweep` command, its continuation lines joined."""
    text = []
    with open(os.path.join(ROOT, study_file), encoding="utf-8") as f:
        for line in f:
            if not line.startswith("#"):
                break
            text.append(line[1:].strip())
    joined = re.sub(r"\\\n\s*", " ", "\n".join(text))
    commands = [l for l in joined.split("\n") if re.match(r"\S*bcastsim sweep ", l)]
    return [re.sub(r"\s+#.*$", "", c) for c in commands]  # a remark after the command


def listed_points(argv):
    """(index, seed, values) of each line of `sweep --list`."""
    done = subprocess.run([BINARY] + argv + ["--list"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    points = []
    for line in done.stdout.splitlines()[1:]:
        m = re.match(r"\s+points/(\d+)\s+seed (\d+)\s+(.*)$", line)
        if not m:
            continue
        values = dict(kv.split("=", 1) for kv in m.group(3).split())
        values.pop("replicate", None)
        values.pop("seed", None)  # a varied seed: the seed column
        points.append((int(m.group(1)), m.group(2), values))
    return done.returncode, done.stderr, points


def committed_rows(results_dir, parameters):
    """(index, seed, values) of each row of results.csv."""
    rows = []
    with open(os.path.join(results_dir, "results.csv"), newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            values = {p: row[p] for p in parameters if p != "seed"}
            rows.append((int(row["point"]), row["seed"], values))
    return rows


class StudiesAsWritten(unittest.TestCase):
    def test_every_committed_study_lists_its_committed_points(self):
        found = sorted(glob.glob(os.path.join(ROOT, "experiments", "**", "study.json"),
                                 recursive=True))
        self.assertGreater(len(found), 10, "no committed studies found under experiments/")
        for path in found:
            results_dir = os.path.relpath(os.path.dirname(path), ROOT)
            with self.subTest(results=results_dir):
                with open(path, encoding="utf-8") as f:
                    meta = json.load(f)
                study_file = meta["study_file"]
                commands = header_command(study_file)
                self.assertEqual(len(commands), 1, f"{study_file}: header sweep commands")
                argv = shlex.split(commands[0])[1:]  # drop the binary's path
                self.assertIn(study_file, argv, f"{study_file}: the command runs another file")
                self.assertIn("--out", argv)
                self.assertEqual(os.path.normpath(argv[argv.index("--out") + 1]), results_dir,
                                 f"{study_file}: --out is not the committed results")
                code, err, listed = listed_points(argv)
                self.assertEqual(code, 0, f"{study_file}: {err}")
                rows = committed_rows(os.path.join(ROOT, results_dir), meta["parameters"])
                self.assertEqual(len(listed), len(rows), f"{study_file}: point count")
                self.assertEqual(listed, rows, f"{study_file}: points differ from results.csv")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    BINARY = os.path.abspath(sys.argv.pop(1))
    unittest.main()
