#!/usr/bin/env python3
"""Every committed study runs as its header writes it (issue 18: "each runnable as written").

A study's header comment carries one `bcastsim sweep STUDY ... --out DIR` command. For each
committed results directory (one with a tracked study.json), the study file it names must carry
that command with `--out` that directory; the command with `--list` added must be accepted
(exit 0) and list what the results were run for: the same command, base scenario, `set` and
random draws as study.json, the base scenario file's bytes where study.json records their
hash, and the rows of results.csv (indices, values, replicates, seeds). Every other study with
such a header command must be accepted too. So a study or scenario edited after its run, a
header pointing elsewhere or a command with a typo fails here. Nothing is simulated. Standard
library only.

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


def tracked(pattern):
    """Files under experiments/ matching the glob, as git tracks them (scratch sweeps written
    into the checkout do not count); every match when this is not a git checkout."""
    done = subprocess.run(["git", "ls-files", "--", pattern], cwd=ROOT, capture_output=True,
                          text=True)
    if done.returncode == 0 and done.stdout.strip():
        return sorted(done.stdout.split())
    return sorted(os.path.relpath(p, ROOT)
                  for p in glob.glob(os.path.join(ROOT, pattern), recursive=True))


def header_commands(path):
    """The header's `bcastsim sweep` commands as argument lists, continuation lines joined and
    a trailing remark dropped."""
    text = []
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        for line in f:
            if not line.startswith("#"):
                break
            text.append(line[1:].strip())
    joined = re.sub(r"\\\n\s*", " ", "\n".join(text))
    return [shlex.split(re.sub(r"\s+#.*$", "", line))[1:]  # drop the binary's path
            for line in joined.split("\n") if re.match(r"\S*bcastsim sweep ", line)]


def out_dir(argv):
    for i, a in enumerate(argv):
        if a == "--out" and i + 1 < len(argv):
            return os.path.normpath(argv[i + 1])
        if a.startswith("--out="):
            return os.path.normpath(a[len("--out="):])
    return None


def sweep_list(argv):
    """(exit code, stderr, study line, points) of the command with --list; a point is
    (index, seed, replicate, values)."""
    done = subprocess.run([BINARY] + argv + ["--list"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    lines = done.stdout.splitlines()
    points = []
    for line in lines[1:]:
        m = re.match(r"\s+points/(\d+)\s+seed (\d+)\s+(.*)$", line)
        if not m:
            continue
        values = dict(kv.split("=", 1) for kv in m.group(3).split())
        replicate = int(values.pop("replicate", 0))
        values.pop("seed", None)  # a varied seed: the seed column
        points.append((int(m.group(1)), m.group(2), replicate, values))
    return done.returncode, done.stderr, lines[0] if lines else "", points


def listed_study(line):
    """command, scenario, set and random draws from `NAME: N points (run SCENARIO --set k=v;
    random draws D)`."""
    m = re.match(r".*? points(?:, \d+ chosen by --only)? \((.*); random draws (\S+)\)$", line)
    if not m:
        return None
    head, *sets = re.split(r" --set ", m.group(1))
    command, _, scenario = head.partition(" ")
    return command, scenario, dict(s.split("=", 1) for s in sets), m.group(2)


def committed_rows(results_dir, parameters):
    rows = []
    with open(os.path.join(ROOT, results_dir, "results.csv"), newline="",
              encoding="utf-8") as f:
        for row in csv.DictReader(f):
            values = {p: row[p] for p in parameters if p != "seed"}
            rows.append((int(row["point"]), row["seed"], int(row.get("replicate") or 0),
                         values))
    return rows


def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


class StudiesAsWritten(unittest.TestCase):
    def test_every_committed_study_lists_what_its_results_were_run_for(self):
        found = tracked("experiments/**/study.json")
        self.assertGreater(len(found), 10, "no committed studies found under experiments/")
        for path in found:
            results_dir = os.path.dirname(path)
            with self.subTest(results=results_dir):
                with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                    meta = json.load(f)
                study_file = meta["study_file"]
                commands = header_commands(study_file)
                self.assertEqual(len(commands), 1, f"{study_file}: header sweep commands")
                argv = commands[0]
                self.assertEqual(argv[:2], ["sweep", study_file],
                                 f"{study_file}: the command runs another file")
                self.assertEqual(out_dir(argv), results_dir,
                                 f"{study_file}: --out is not the committed results")
                code, err, line, listed = sweep_list(argv)
                self.assertEqual(code, 0, f"{study_file}: {err}")
                self.assertEqual(listed_study(line), (
                    meta["command"], meta.get("scenario", ""), meta["set"],
                    meta.get("random_draws", "common")), f"{study_file}: {line}")
                if meta.get("scenario_fnv1a"):
                    with open(os.path.join(ROOT, meta["scenario"]), "rb") as f:
                        self.assertEqual(fnv1a(f.read()), meta["scenario_fnv1a"],
                                         f"{meta['scenario']} changed since the study ran")
                rows = committed_rows(results_dir, meta["parameters"])
                self.assertEqual(len(listed), len(rows), f"{study_file}: point count")
                self.assertEqual(listed, rows, f"{study_file}: points differ from results.csv")

    def test_every_study_with_a_header_command_is_accepted(self):
        studies = [p for p in tracked("experiments/**.yaml")
                   if any(argv[:2] == ["sweep", p] for argv in header_commands(p))]
        self.assertGreater(len(studies), 10)
        for study_file in studies:
            with self.subTest(study=study_file):
                (argv,) = [a for a in header_commands(study_file) if a[:2] == ["sweep", study_file]]
                code, err, line, listed = sweep_list(argv)
                self.assertEqual(code, 0, f"{study_file}: {err}")
                self.assertTrue(listed, f"{study_file}: no point listed")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    BINARY = os.path.abspath(sys.argv.pop(1))
    unittest.main()
