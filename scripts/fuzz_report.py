#!/usr/bin/env python3
"""scripts/fuzz.py's summary (issue 39): exit codes, the reasons of exit 1, wall per command,
findings grouped by signature, and its own coverage: cases per topology kind, family,
algorithm, NIC kind and command by outcome. It fails the run when a class it draws from never
simulated to the end (exit 0), or when fewer than --min-complete of its run cases did.
Standard library only."""

import re

# A SystemC report, also when bcastsim only passes it on ("simulation error at 0 s: Warning:").
SYSTEMC_LINE = re.compile(r"(Warning|Info|Error): \(\w\d+\)|^In (file|process): |^\s*$")

# Commands whose cases must be refused or are cut short by design: no exit 0 expected.
NO_EXIT_0 = {"output-at-device", "sweep-bad-jobs", "run-killed", "full-disk"}
DIMENSIONS = ("kind", "family", "algorithm", "nic", "command")


def message_lines(err):
    """stderr without SystemC's report lines and bcastsim's prefixes."""
    lines = []
    for line in err.splitlines():
        if SYSTEMC_LINE.search(line) or line.startswith("Run with --help"):
            continue
        lines.append(re.sub(r"^bcastsim: (error: |simulation failed: )?", "", line))
    return lines


def signature(kind, detail, err):
    """What groups findings in the summary: the kind and the first message line, digits out."""
    reports = [l for l in err.splitlines() if re.match(r"^(Error|Warning): \(", l)]
    lines = [l for l in message_lines(err) if l.strip()]
    lines = [l for l in lines if not l.startswith("warning:")] or lines  # the error, not a note
    first = (reports if kind != "exit-1" and reports else lines or [""])[0]
    if kind in ("accepted", "not-a-file", "timeout") or kind.startswith(
            ("differ", "resume", "analyze", "output-replaced", "flag-ignored", "compare")):
        first = detail
    elif kind == "crash-text":
        first = next((l.strip() for l in err.splitlines() if detail in l), detail)
    else:
        first = detail + " | " + first
    return kind + ": " + re.sub(r"\d+", "N", re.sub(r"'[^']*'", "'…'", first))[:160]


def outcome(rc, found):
    if found:
        return "finding"
    return {None: "timeout"}.get(rc, "exit %s" % rc if isinstance(rc, int) else str(rc))


def coverage(results):
    """{dimension: {value: {outcome: cases, "sim": exit-0 cases}}}."""
    table = {d: {} for d in DIMENSIONS}
    for case, rc, _, found in results:
        for d in DIMENSIONS:
            value = case.tags.get(d)
            if value in (None, "-"):
                continue
            row = table[d].setdefault(value, {})
            o = outcome(rc, found)
            row[o] = row.get(o, 0) + 1
            row["sim"] = row.get("sim", 0) + (rc == 0)
    return table


def print_coverage(table):
    cols = ["exit 0", "exit 1", "exit 2", "timeout", "finding", "skipped"]
    print("  coverage (cases by outcome; sim = exit 0, findings included):")
    print("    %-10s %-24s %5s %5s " % ("class", "value", "cases", "sim") +
          " ".join("%7s" % c for c in cols))
    never = []
    for d in DIMENSIONS:
        for value, row in sorted(table[d].items()):
            n = sum(v for k, v in row.items() if k != "sim")
            print("    %-10s %-24s %5d %5d " % (d, value, n, row.get("sim", 0)) +
                  " ".join("%7d" % row.get(c, 0) for c in cols))
            if row.get("sim", 0) == 0 and not (d == "command" and value in NO_EXIT_0):
                never.append("%s=%s" % (d, value))
    return never


def report(args, results, elapsed_s):
    """Prints the summary; returns the number of failures (findings, classes never run to
    the end, too few run cases complete)."""
    codes, exit1, groups = {}, {}, {}
    for case, rc, err, found in results:
        codes[str(rc)] = codes.get(str(rc), 0) + 1
        if rc == 1 and not found:
            exit1.setdefault(signature("exit-1", "", err), []).append(case.number)
        for kind, detail, item in found:
            g = groups.setdefault(signature(kind, detail, err), [item, []])
            g[1].append(case)
    print("fuzz: seed %s, %d cases in %.0f s; exit codes: %s" % (
        args.seed, len(results), elapsed_s,
        ", ".join("%s: %d" % ("timeout" if k == "None" else k, v)
                  for k, v in sorted(codes.items()))))
    print("  exit 1 (a failed run is allowed; the reasons, for reading):")
    for sig, numbers in sorted(exit1.items(), key=lambda kv: -len(kv[1])):
        print("    %4d  %s (e.g. case %d)" % (len(numbers), sig[len("exit-1: "):], numbers[0]))
    walls = {}
    for case, _, _, _ in results:
        walls.setdefault(case.tags.get("command", case.command), []).append(
            getattr(case, "wall_s", 0))
    print("  wall per case: " + ", ".join("%s %d x %.2f s" % (c, len(w), sum(w) / len(w))
                                         for c, w in sorted(walls.items())))
    never = print_coverage(coverage(results))
    failing = 0
    for sig, (item, cases) in sorted(groups.items(), key=lambda kv: -len(kv[1][1])):
        known = item and args.allow_known
        failing += 0 if known else len(cases)
        print("  %s %4d  %s" % ("KNOWN" if item else "FOUND", len(cases), sig))
        if item:
            print("            %s" % item)
        first = cases[0]
        print("            e.g. --seed %s --case %d: %s" % (args.seed, first.number,
                                                         "; ".join(first.what)[:300]))
    runs = [rc for case, rc, _, _ in results if case.tags.get("command") == "run"]
    done = sum(1 for rc in runs if rc == 0) / len(runs) if runs else 1.0
    print("fuzz: %d of %d run cases simulated to the end (%.0f %%, at least %.0f %% required)"
          % (sum(1 for rc in runs if rc == 0), len(runs), 100 * done, 100 * args.min_complete))
    if never and not args.case:
        print("fuzz: never simulated to the end (exit 0): " + ", ".join(never))
    print("fuzz: %d finding(s)%s" % (failing, ", known ones allowed" if args.allow_known else ""))
    if args.findings and groups:
        print("fuzz: inputs, commands and outputs in %s" % args.findings)
    failing += len(never) if not args.case else 0
    failing += 1 if done < args.min_complete and not args.case else 0
    return failing
