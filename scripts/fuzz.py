#!/usr/bin/env python3
"""Fuzzer of bcastsim's inputs, commands and new paths (issues 13 and 39).

Each case (scripts/fuzz_commands.py) is one or more commands in a folder of its own: valid
small scenarios of every topology kind, offload family, NIC kind and algorithm
(scripts/fuzz_scenarios.py), varied and mutated; analyze beside run; graph files written by
`bcastsim graph`, run back or mutated; cosim of both blocks on random stimulus and replays;
sweeps with --only, a signal in the middle and a resume; outputs aimed at FIFOs, devices and
a full tmpfs; and issue 13's mutations of the shipped scenarios and studies
(scripts/fuzz_cases.py). Every command is checked for what it must do whatever its input:
  - exit 0, 1 or 2; never a signal, never "terminate called" / an uncaught exception;
  - exit 2 with a message on stderr naming what is wrong (not a JSON library's); exit 1
    with more than a bare SystemC report;
  - exit 0: every JSON output parses, and result.json conserves packets: injected (NICs)
    plus copies sent by Bcast Units = delivered (NICs) plus packets taken in by the units,
    plus any dropped; every rank complete; traffic messages offered = sent + dropped at
    source, sent = delivered;
  - no output file left half-written (every *.json and results.csv parses) and no temporary
    file left behind.
and across a case's commands (scripts/fuzz_checks.py): same seed, same result; analyze
against run; a graph file against the built-in network; a resumed study against a fresh one;
an output path naming a FIFO or device left as it was. The summary (scripts/fuzz_report.py)
has a coverage table and fails when a class drawn never exits 0.
Each case is seeded from (seed, case number), so one case reruns alone with --case. Failing
cases go to the findings folder (input, commands, output) and the summary groups them.

  scripts/fuzz.py build/release/bcastsim --seed 1 --cases 300 -j 2 --min-complete 0.4  # CTest
  scripts/fuzz.py build/release/bcastsim --seed 7 --cases 3000 --findings /tmp/fz  # release
  scripts/fuzz.py build/release/bcastsim --seed 7 --case 1234 --findings /tmp/one

Exit: 0 no finding, 1 findings, 2 bad arguments. Standard library only.
"""

import argparse
import concurrent.futures
import csv
import json
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The case generator; re-exported, as tests/scripts/test_fuzz.py uses it through this module.
from fuzz_cases import (  # noqa: E402
    EXPERIMENTS, SCENARIOS, STUDIES, CRASH_TEXT, shrink, read_keys, parse_keys, is_big, Case,
    Step)
from fuzz_commands import make_case  # noqa: E402
from fuzz_checks import make_node, unmount  # noqa: E402
from fuzz_report import report, message_lines, signature  # noqa: E402, F401
import fuzz_scenarios  # noqa: E402  (its HAS_RTL is set in main)


# ---- running and checking ---------------------------------------------------------------

def limit_child():
    """Keep a runaway case from taking the machine: 4 GiB of memory, no core, 256 MiB files."""
    os.setsid()
    if not SANITIZED:  # AddressSanitizer reserves terabytes of shadow: its env var limits it
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 20, 256 << 20))


SANITIZED = False  # set by main(): the binary is built with AddressSanitizer (the asan preset)


def is_sanitized(binary):
    with open(binary, "rb") as f:
        return b"__asan_init" in f.read()


def has_rtl(binary):
    """Whether the build has the verilated models (their classes' names are in the binary)."""
    with open(binary, "rb") as f:
        return b"Vbcast_core" in f.read()


def child_env():
    """Under AddressSanitizer, allocations past 4 GiB of RSS fail (std::bad_alloc) as they
    would under the address-space limit."""
    env = dict(os.environ)
    if SANITIZED:
        extra = "allocator_may_return_null=1:soft_rss_limit_mb=4096"
        env["ASAN_OPTIONS"] = (env["ASAN_OPTIONS"] + ":" if env.get("ASAN_OPTIONS") else "") + extra
    return env


def write_inputs(case, work):
    """The case's files into in/ (@WORK: the case's folder) and its nodes (FIFOs...)."""
    os.makedirs(os.path.join(work, "in"))
    for name, text in case.files.items():
        with open(os.path.join(work, "in", name), "w", encoding="latin-1", errors="replace") as f:
            f.write(text.replace("@WORK", work))
    for name, kind in case.modes:
        if not make_node(os.path.join(work, "in", name), kind):
            return "mknod %s not permitted" % name
    return ""


def run_step(binary, step, work):
    """Runs one command in the case's folder; returns (exit code or None on timeout, out,
    err). A step with `kill` gets that signal after its delay (a sweep or a run cut short)."""
    argv = [a.replace("@WORK", work) for a in step.argv]
    proc = subprocess.Popen([binary] + argv, cwd=work, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=limit_child, env=child_env())
    try:
        if step.kill:
            try:
                out, err = proc.communicate(timeout=step.kill[0])
                return proc.returncode, out.decode("utf-8", "replace"), err.decode(
                    "utf-8", "replace")
            except subprocess.TimeoutExpired:
                proc.send_signal(step.kill[1])
        out, err = proc.communicate(timeout=step.timeout_s)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        rc = None
    return rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def run_case(binary, case, work):
    """Runs a case's steps in its own folder; returns (rcs, [(step, rc, out, err)])."""
    rcs, runs = [], []
    for step in case.steps:
        if step.action:
            rcs.append("action")
            case.what.append(step.action(work))
            continue
        last = next((r for r in reversed(rcs) if r != "action"), 0)
        if step.requires_ok and last != 0:
            rcs.append("skip")
            continue
        rc, out, err = run_step(binary, step, work)
        rcs.append(rc)
        runs.append((step, rc, out, err))
    return rcs, runs


def check_result(d):
    """Problems in one result.json: packet conservation, incomplete ranks, traffic balance."""
    problems = []
    p = d.get("packets")
    if not isinstance(p, dict) or "injected" not in p or "delivered" not in p:
        return ["result.json has no packets.injected/delivered"]
    units = (d.get("ragasa") or {}).get("units") or {}
    # Units inject their copies and their credit returns (hw/ragasa/README.md).
    out = units.get("packets_out", 0) + units.get("credit_returns", 0)
    entered = p["injected"] + out
    left = p["delivered"] + units.get("packets_in", 0) + p.get("dropped", 0)
    if entered != left:
        problems.append("conservation: injected %s + unit copies %s != delivered %s + unit "
                        "inputs %s + dropped %s" % (p["injected"], out,
                                                    p["delivered"], units.get("packets_in", 0),
                                                    p.get("dropped", 0)))
    c = d.get("collective") or {}
    if c.get("algorithm") not in (None, "none") and c.get("ranks_complete") != c.get("ranks"):
        problems.append("collective: %s of %s ranks complete" % (c.get("ranks_complete"),
                                                                c.get("ranks")))
    t = d.get("traffic")
    if isinstance(t, dict) and "messages_offered" in t:
        if t["messages_offered"] != t.get("messages_sent", 0) + t.get("dropped_at_source", 0):
            problems.append("traffic: offered != sent + dropped at source")
        if t.get("messages_sent") != t.get("messages_delivered"):
            problems.append("traffic: sent %s != delivered %s" % (t.get("messages_sent"),
                                                                   t.get("messages_delivered")))
    return problems


def point_ok(folder):
    """Whether a sweep point's status.json says ok (its result.json must then conserve)."""
    try:
        with open(os.path.join(folder, "status.json")) as f:
            return json.load(f).get("status") == "ok"
    except (OSError, ValueError):
        return False


def check_outputs(out_dir, exit_ok, command):
    """Problems in the output folder: unparsable JSON/CSV, temporaries, conservation."""
    problems = []
    for root, _, names in os.walk(out_dir):
        for name in names:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, out_dir)
            if re.search(r"(tmp|temp|\.part|~$|\.new$)", name, re.I):
                problems.append("leftover temporary file " + rel)
            if name.endswith(".json"):
                try:
                    with open(path) as f:
                        d = json.load(f)
                except (ValueError, UnicodeDecodeError) as e:
                    problems.append("half-written %s: %s" % (rel, str(e)[:80]))
                    continue
                if name == "result.json" and (exit_ok or point_ok(root)):
                    problems += ["%s: %s" % (rel, p) for p in check_result(d)]
                if name == "status.json" and d.get("exit_code") not in (0, 1, 2):
                    problems.append("%s: point exit %s: %s" % (rel, d.get("exit_code"),
                                                              str(d.get("error"))[:120]))
    csv_path = os.path.join(out_dir, "results.csv")
    if os.path.exists(csv_path):
        with open(csv_path, newline="") as f:
            rows = list(csv.reader(f))
        if not rows or any(len(r) != len(rows[0]) for r in rows):
            problems.append("results.csv rows of unequal length")
    if exit_ok and command == "run" and not os.path.exists(os.path.join(out_dir, "result.json")):
        problems.append("exit 0 without result.json")
    return problems


# Scenario paths that are no scenario file: a run must refuse them (exit 2).
NOT_A_SCENARIO = ["in", "/dev/zero", "/proc/self/mem", "in/missing.yaml", "/etc/shadow-none",
                  ""]


def check_case(case, rc, out, err, work):
    """Findings of one finished case: a list of (kind, detail)."""
    if rc is None:
        return [] if case.big else [("timeout", "%s: no exit after %d s" % (
            case.command, case.timeout_s))]
    found = []
    kill = getattr(case, "kill", None)
    # A signal the case sent: death by it, or exit 128 + it (or 130, Ctrl-C's, for any).
    killed = kill and rc in (-kill[1], 128 + kill[1], 130)
    if getattr(case, "expect", None) is not None and rc != case.expect and not killed:
        found.append(("exit-%s-expected" % case.expect, "%s exit %s" % (case.command, rc)))
    if case.must_refuse and rc == 0:
        found.append(("accepted", "exit 0 with a %s" % case.must_refuse))
    if case.must_not_name and rc == 2 and case.must_not_name in err:
        found.append(("refused-good", "exit 2 blaming %s, which is valid" % case.must_not_name))
    if case.command != "sweep" and case.argv[1] in NOT_A_SCENARIO and rc != 2:
        found.append(("not-a-file", "scenario %r accepted (exit %d)" % (case.argv[1], rc)))
    if killed:
        pass  # the signal the case sent: its outputs are checked below
    elif rc < 0:
        found.append(("signal", "killed by signal %d (%s)" % (-rc, signal.Signals(-rc).name)))
    elif rc not in (0, 1, 2):
        found.append(("exit-code", "exit %d" % rc))
    for text in CRASH_TEXT:
        if text in err or text in out:
            found.append(("crash-text", text))
            break
    # SystemC prints its reports (uncaught exceptions included) on stdout.
    lines = message_lines(err)
    named = [l for l in lines if re.search(r"[a-z_]+\.[a-z_]+|--[a-z]|'[^']*'|\bline \d+|"
                                           r"\b[A-Za-z_]+ *[:=]|\b(key|file|flag)\b", l)]
    if rc == 2 and not named:
        found.append(("exit-2-unnamed", "exit 2 without a message naming the input"))
    if rc == 2 and re.search(r"\[json\.exception|type must be \w+, but is", err):
        found.append(("exit-2-library-text", "exit 2 with a JSON library's message"))
    if rc == 1 and re.search(r"expected bytes .* but got", err):
        # The hosts match messages in posting order (MPI non-overtaking): a valid scenario
        # never fails so, whatever the routing (issue 13, reproduction 4).
        found.append(("exit-1-mismatch", "exit 1: a receive matched the wrong message"))
    if rc == 1 and not found and not message_lines(err + "\n" + out):
        found.append(("exit-1-systemc-only", "exit 1 with only a SystemC report"))
    out_dir = os.path.join(work, getattr(case, "out", "out"))
    if os.path.isdir(out_dir) and case.argv and "--list" not in case.argv:
        for p in check_outputs(out_dir, rc == 0, case.command):
            # SIGKILL leaves a temporary behind by nature; a half-written final name never.
            if not (killed and kill[1] == signal.SIGKILL and "temporary" in p):
                found.append(("output", p))
    return found


# Findings of defects already filed and not yet fixed: (item, kind, pattern on the case's
# stderr + command). With --allow-known they are reported as known and do not fail the run;
# without it they fail it like any other finding. Empty: issue 13's defects are fixed, and
# the CTest runs without --allow-known so that any of them coming back fails it.
KNOWN = [
]


def classify(kind, detail, err, argv):
    text = "%s\n%s\n%s" % (detail, err, " ".join(argv))
    for item, k, pattern in KNOWN:
        if k == kind and re.search(pattern, text):
            return item
    return None


def save_finding(folder, seed, case, work, rcs, text, found):
    dest = os.path.join(folder, "case-%s-%d" % (seed, case.number))
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(work, dest, symlinks=True, ignore_dangling_symlinks=True,
                    ignore=lambda d, names: [n for n in names if not (
                        os.path.isdir(os.path.join(d, n)) or os.path.isfile(os.path.join(d, n)))])
    with open(os.path.join(dest, "README.txt"), "w") as f:
        f.write("seed %s case %d: %s\n" % (seed, case.number, "; ".join(case.what)))
        f.write("repeat: scripts/fuzz.py BCASTSIM --seed %s --case %d --findings DIR\n"
                % (seed, case.number))
        for step, rc in zip(case.steps, rcs):
            if not step.action:
                f.write("step: %s -> exit %s\n" % (" ".join(shlex.quote(a.replace("@WORK", dest))
                                                             for a in ["BCASTSIM"] + step.argv),
                                                   "timeout" if rc is None else rc))
        for kind, detail, item in found:
            f.write("finding: %s: %s%s\n" % (kind, detail, " (known: %s)" % item if item else ""))
        f.write("--- output\n%s\n" % text[-8000:])


def fuzz_one(args, keys, texts, number):
    """Runs one case; returns (case, outcome, stderr and stdout, findings)."""
    case = make_case(args.seed, number, keys, texts)
    work = tempfile.mkdtemp(prefix="case-%d-" % number, dir=args.work)
    try:
        started = time.monotonic()
        skipped = write_inputs(case, work)
        if skipped:
            case.wall_s = 0
            case.what.append("skipped: " + skipped)
            return case, "skipped", skipped, []
        rcs, runs = run_case(args.binary, case, work)
        case.wall_s = time.monotonic() - started
        text = "\n".join(err + "\n" + out for _, _, out, err in runs)
        found = []
        # A SIGKILLed writer (sent by the case, or at its timeout) leaves its temporary, and
        # every step's folder is checked after the last step ran: none is a finding then.
        sigkilled = any(rc is None or (step.kill and step.kill[1] == signal.SIGKILL)
                        for step, rc, _, _ in runs)
        for step, rc, out, err in runs:
            for k, d in check_case(step, rc, out, err, work):
                if not (sigkilled and k == "output" and "temporary" in d):
                    found.append((k, d, classify(k, d, err + "\n" + out, step.argv)))
        for check in case.post:
            found += [(k, d, classify(k, d, text, case.argv)) for k, d in check(work, rcs)]
        if found and args.findings:
            save_finding(args.findings, args.seed, case, work, rcs, text, found)
        return case, rcs[case.main], text, found
    finally:
        for name, kind in case.modes:
            if kind == "tmpfs":
                unmount(os.path.join(work, "in", name))
        shutil.rmtree(work, ignore_errors=True)


def load_texts():
    texts = {}
    for name in SCENARIOS + STUDIES:
        # Latin-1 keeps every byte as one character: files are written back byte for byte.
        with open(os.path.join(EXPERIMENTS, name), encoding="latin-1") as f:
            texts[name] = shrink(f.read())
    return texts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary", help="path of bcastsim")
    ap.add_argument("--seed", default="1", help="fuzz seed (default 1)")
    ap.add_argument("--cases", type=int, default=300, help="cases to run (default 300)")
    ap.add_argument("--minutes", type=float, default=0,
                    help="run until this many minutes have passed (then --cases is ignored)")
    ap.add_argument("--case", type=int, action="append", help="run only this case (repeatable)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="cases at a time (default 2)")
    ap.add_argument("--findings", help="folder for failing cases (input, command, output)")
    ap.add_argument("--allow-known", action="store_true",
                    help="findings of defects already filed (KNOWN) do not fail the run")
    ap.add_argument("--min-complete", type=float, default=0.0,
                    help="fail when fewer than this fraction of run cases exit 0 (e.g. 0.4)")
    args = ap.parse_args()
    if not os.access(args.binary, os.X_OK):
        ap.error("binary %r is not executable" % args.binary)
    args.binary = os.path.abspath(args.binary)
    if args.findings:
        # Stale cases of an earlier run would read as this run's.
        os.makedirs(args.findings, exist_ok=True)
        args.findings = os.path.abspath(args.findings)
        for name in os.listdir(args.findings):
            if name.startswith("case-"):
                shutil.rmtree(os.path.join(args.findings, name), ignore_errors=True)
    global SANITIZED
    SANITIZED = is_sanitized(args.binary)
    fuzz_scenarios.HAS_RTL = has_rtl(args.binary)
    keys = read_keys(args.binary)
    if len(keys) < 30 or "collective.algorithm" not in keys:
        print("fuzz: read only %d keys from `%s list`: its table format changed?"
              % (len(keys), args.binary), file=sys.stderr)
        return 2
    texts = load_texts()
    args.work = tempfile.mkdtemp(prefix="bcastsim-fuzz-")
    start = time.monotonic()
    numbers = iter(args.case) if args.case else (
        iter(range(10 ** 9)) if args.minutes else iter(range(args.cases)))
    results = []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            pending = set()
            for number in numbers:
                if args.minutes and time.monotonic() - start > args.minutes * 60:
                    break
                pending.add(pool.submit(fuzz_one, args, keys, texts, number))
                if len(pending) >= 2 * args.jobs:
                    done, pending = concurrent.futures.wait(
                        pending, return_when=concurrent.futures.FIRST_COMPLETED)
                    results += [f.result() for f in done]
                    if args.minutes and len(results) // 500 != (len(results) - len(done)) // 500:
                        print("fuzz: %d cases, %.0f s" % (len(results), time.monotonic() - start),
                              file=sys.stderr, flush=True)
            results += [f.result() for f in pending]
    finally:
        shutil.rmtree(args.work, ignore_errors=True)
    results.sort(key=lambda r: r[0].number)
    return 1 if report(args, results, time.monotonic() - start) else 0


if __name__ == "__main__":
    sys.exit(main())
