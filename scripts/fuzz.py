#!/usr/bin/env python3
"""Mutation fuzzer for bcastsim's input handling (issue 13).

Mutates the shipped scenarios and studies (experiments/) and `--set` combinations, runs
`bcastsim run`, `analyze` and `sweep` on them with a per-case timeout, and checks what every
run must do whatever its input:
  - exit 0, 1 or 2; never a signal, never "terminate called" / an uncaught exception;
  - exit 2 with a message on stderr naming what is wrong; exit 1 with more than a bare
    SystemC report;
  - exit 0: every JSON output parses, and result.json conserves packets: injected (NICs)
    plus copies sent by Bcast Units = delivered (NICs) plus packets taken in by the units,
    plus any dropped; every rank complete; traffic messages offered = sent + dropped at
    source, sent = delivered;
  - no output file left half-written (every *.json and results.csv parses) and no temporary
    file left behind.
Each case is seeded from (seed, case number), so one case reruns alone with --case. Failing
cases go to the findings folder (input, command, output) and the summary groups them.

  scripts/fuzz.py build/release/bcastsim --seed 1 --cases 200 -j 2   # the CTest
  scripts/fuzz.py build/release/bcastsim --seed 7 --minutes 30 --findings /tmp/fz
  scripts/fuzz.py build/release/bcastsim --seed 7 --case 1234 --findings /tmp/one

Exit: 0 no finding, 1 findings, 2 bad arguments. Standard library only.
"""

import argparse
import concurrent.futures
import csv
import json
import os
import random
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EXPERIMENTS = os.path.join(os.path.dirname(HERE), "experiments")

# Shipped inputs, relative to experiments/ (README.md there and in the repository say which
# are studies). Large networks are shrunk below so that a case runs in well under a second.
SCENARIOS = ["default.yaml", "ragasa/df72.yaml", "traffic/df72-uniform.yaml",
             "traffic/df72-adversarial.yaml", "traffic/df1056-uniform.yaml",
             "traffic/df1056-adversarial.yaml", "topology-aware/df5k.yaml",
             "topology-aware/df16k.yaml"]
STUDIES = ["sweep-example.yaml", "sweep-algorithms.yaml", "ragasa/seeds.yaml",
           "ragasa/buffers.yaml", "ragasa/sizes.yaml", "ragasa/roots.yaml",
           "ragasa/send-queue.yaml"]

BOUNDARY = ["0", "-1", "1", "2", "4294967295", "4294967296", "4294967297",
            "18446744073709551615", "18446744073709551616", "-9223372036854775809",
            "1e300", "-1e300", "1e-300", "1.5", "0.5", "-0.0", ".nan", ".inf", "-.inf",
            "0x10", "1_000", "'16'", "abc", "''", '""', "[]", "[1, 2]", "{}", "{a: 1}",
            "null", "~", "true", "off", "yes", "16KiB", "\"\\u0000\"", "!!binary AAAA",
            "&x 3", "*nope", "'" + "9" * 400 + "'"]

# Values above this (or positive below SMALL_MIN) may legitimately take long: a timeout on
# a case with one counts as "slow input", not a finding.
BIG = 65536
SMALL_MIN = 0.01

# Errors that show a crash, whatever the exit code.
CRASH_TEXT = ["terminate called", "what():", "Segmentation fault", "core dumped",
              "AddressSanitizer", "runtime error:", "Assertion", "std::bad_alloc",
              "Traceback (most recent call last)", "uncaught exception"]

# Keys every case sets last so that it stays small: (key, value). A mutation of the same key
# in the file is then overridden, which the --set mutations make up for.
SHRINK_TEXT = [(r"\ba: *(\d+)", "a: 4"), (r"\bp: *(\d+)", "p: 2"), (r"\bh: *(\d+)", "h: 2"),
               (r"\bg: *(\d+)", "g: 0"), (r"measure_ns: *\d+", "measure_ns: 2000"),
               (r"warmup_ns: *\d+", "warmup_ns: 500"), (r"replicates: *\d+", "replicates: 1")]


def shrink(text):
    """The shipped file with a small network, short traffic windows and few sweep points."""
    for pattern, repl in SHRINK_TEXT:
        text = re.sub(pattern, repl, text)
    # Every flow list keeps its first element: [a, b, c] -> [a] (zip groups stay equal).
    text = re.sub(r"\[([^\[\],{}]*),[^\[\]{}]*\]", r"[\1]", text)
    # Ranges keep their start: {from: X, to: Y, ...} -> {from: X, to: X, ...}.
    text = re.sub(r"from: *([^,}]+), *to: *[^,}]+", r"from: \1, to: \1", text)
    return text


def read_keys(binary):
    """Scenario keys from `bcastsim list`: {key: allowed values (list) or (lo, hi) or None}."""
    out = subprocess.run([binary, "list"], capture_output=True, text=True, timeout=60).stdout
    return parse_keys(out)


def parse_keys(out):
    """The key tables of `bcastsim list` output (columns key, default, allowed, description)."""
    keys, cols = {}, None
    for line in out.splitlines():
        head = re.match(r"^(\s*)key(\s+)default(\s+)allowed(\s+)description", line)
        if head:
            cols = (line.index("default"), line.index("allowed"), line.index("description"))
            continue
        if cols is None or not line.startswith("  ") or len(line) <= cols[1]:
            continue
        key = line.split()[0]
        if not re.match(r"^((?:[a-z_]+\.)+[a-z_]+|seed)$", key):
            continue
        # A wide allowed column may run past the description column's start.
        text = line[cols[1]:] if line[cols[1]] != " " else ""
        allowed = None
        r = re.match(r"^(\S+) \.\. (\S+)\s", text)
        if r:
            allowed = (r.group(1), r.group(2))
        elif text:
            allowed = text.split(" ")[0].split("|")
        if isinstance(keys.get(key), list) and isinstance(allowed, list):
            allowed = keys[key] + [v for v in allowed if v not in keys[key]]  # kinds' routings
        keys[key] = allowed if key not in keys or isinstance(allowed, list) else keys[key]
    # The algorithm list is a table of its own.
    algos = re.findall(r"^  ([a-z][a-z-]*)(?:, [a-z-]+)?\s{2,}\S", out.split("Algorithms")[1]
                       .split("Block statistics")[0], re.M) if "Algorithms" in out else []
    if algos:
        keys["collective.algorithm"] = algos
    return keys


def numeric(v):
    try:
        return float(str(v).strip("'\""))
    except ValueError:
        return None


# Keys whose value multiplies the network's size: above 8 they may make it large.
SIZE_KEYS = re.compile(r"(^|\.)(a|p|h|g|x|y|z|ranks|terminals_per_node|first_terminal)$")


def is_big(value, key=""):
    f = numeric(value)
    if f is None:
        return str(value).strip().startswith(("[", "{", "&", "*"))
    limit = 8 if SIZE_KEYS.search(key) else BIG
    if key.endswith("packet_bytes") and 0 < f < 64:
        return True  # a packet per few bytes: 16 KiB to 72 ranks is a million packets
    return f != f or abs(f) > limit or (0 < abs(f) < SMALL_MIN)


def value_for(rng, key, allowed):
    """A value for a key: mostly its allowed values and their edges, sometimes anything."""
    r = rng.random()
    if isinstance(allowed, list) and r < 0.6:
        return rng.choice(allowed)
    if isinstance(allowed, tuple) and r < 0.6:
        lo, hi = allowed
        choices = [lo, hi]
        for x in (lo, hi):
            f = numeric(x)
            if f is not None:
                choices += [repr(f - 1) if f != int(f) else str(int(f) - 1),
                            str(int(f) + 1) if f == int(f) and abs(f) < 1e18 else repr(f * 2)]
        choices += ["1", "2", "3", "8", "64"]
        return rng.choice(choices)
    return rng.choice(BOUNDARY)


def format_set(key, value):
    return "--set", "%s=%s" % (key, value)


# ---- text mutations ---------------------------------------------------------------------

def key_lines(lines):
    return [i for i, l in enumerate(lines) if re.match(r"^\s*[A-Za-z_.]+\s*:", l)]


def mutate_value(rng, lines, i, keys, op):
    """Line i's value: an allowed value of its key ("enum"), or a boundary value."""
    m = re.match(r"^(\s*([A-Za-z_.]+)\s*:)(.*)$", lines[i])
    leaf = m.group(2) if m else ""
    full = [k for k in sorted(keys) if k == leaf or k.endswith("." + leaf)]
    if op == "enum" and full and isinstance(keys[full[0]], list):
        value = rng.choice(keys[full[0]])  # another allowed value of this key
    elif op == "enum":
        enums = [v for v in keys.values() if isinstance(v, list)]
        value = rng.choice(rng.choice(enums))  # an allowed value of another key
    elif full and rng.random() < 0.5:
        value = value_for(rng, full[0], keys[full[0]])
    else:
        value = rng.choice(BOUNDARY)
    # Flow maps: replace one inner value instead of the whole map.
    inner = list(re.finditer(r"([A-Za-z_]+): *([^,}]+)", m.group(3))) if m else []
    key = m.group(2) if m else ""
    if inner and "{" in m.group(3):
        k = rng.choice(inner)
        key = k.group(1)
        line = lines[i][:m.end(1) + k.start(2)] + value + lines[i][m.end(1) + k.end(2):]
    elif m:
        line = m.group(1) + " " + value
    else:
        line = lines[i]
    lines[i] = line
    return "\n".join(lines), "line %d -> %r" % (i + 1, line.strip()), is_big(value, key)


def mutate_anchor(rng, lines, i):
    """YAML anchors and aliases: nested ones, one on line i's value, or a self alias."""
    # Nested aliases: a small "billion laughs" (10 levels of 4).
    depth = rng.randint(1, 10)
    block = ["fuzz_laughs:", "  l0: &l0 [x, x, x, x]"]
    for d in range(1, depth):
        block.append("  l%d: &l%d [*l%d, *l%d, *l%d, *l%d]" % ((d, d) + (d - 1,) * 4))
    if rng.random() < 0.5:
        lines += block
        return "\n".join(lines), "aliases %d deep at top level" % depth, depth > 6
    m = re.match(r"^(\s*)([A-Za-z_.]+)\s*:\s*(\S.*)?$", lines[i])
    if m and m.group(3) and not m.group(3).startswith(("{", "[")):
        lines[i] = "%s%s: &fz %s" % (m.group(1), m.group(2), m.group(3))
        lines.append("fuzz_alias: *fz")
        return "\n".join(lines), "anchor on line %d, alias at the end" % (i + 1), False
    lines.append("fuzz_self: &s [*s]")
    return "\n".join(lines), "self alias", False


def mutate_text(rng, text, keys):
    """One mutation of a YAML text; returns (text, description, big)."""
    lines = text.split("\n")
    kl = key_lines(lines) or [0]
    op = rng.choice(["drop", "dup", "value", "value", "value", "enum", "truncate", "anchor",
                     "bytes", "complex", "multidoc", "indent", "flow", "unknown"])
    i = rng.choice(kl)
    if op == "drop":
        del lines[i]
        return "\n".join(lines), "drop line %d" % (i + 1), False
    if op == "dup":
        lines.insert(i + 1, lines[i])
        return "\n".join(lines), "duplicate line %d" % (i + 1), False
    if op in ("value", "enum"):
        return mutate_value(rng, lines, i, keys, op)
    if op == "truncate":
        n = rng.randrange(0, len(text) + 1)
        return text[:n], "truncate at byte %d" % n, False
    if op == "anchor":
        return mutate_anchor(rng, lines, i)
    if op == "bytes":
        data = bytearray(text.encode("latin-1"))
        for _ in range(rng.randint(1, 8)):
            pos = rng.randrange(0, len(data) + 1)
            data[pos:pos] = bytes([rng.randrange(256)])
        return data.decode("latin-1"), "random bytes", False
    if op == "complex":
        lines.insert(i, "? [a, b]\n: 1")
        return "\n".join(lines), "complex key before line %d" % (i + 1), False
    if op == "multidoc":
        cut = rng.choice(kl)
        lines.insert(cut, "---")
        where = "after keys, before" if cut > kl[0] else "before the first key, at"
        return "\n".join(lines), "document separator %s line %d" % (where, cut + 1), False
    if op == "indent":
        lines[i] = "   " + lines[i]
        return "\n".join(lines), "indent line %d" % (i + 1), False
    if op == "flow":
        lines[i] = lines[i].replace(":", ": {", 1) if rng.random() < 0.5 else lines[i] + " ]"
        return "\n".join(lines), "unbalanced flow on line %d" % (i + 1), False
    key = rng.choice(sorted(keys))
    lines.insert(i, "fuzz_unknown_%d: 1" % rng.randrange(100) if rng.random() < 0.5
                 else "%s: %s" % (key.split(".")[0], rng.choice(BOUNDARY)))
    return "\n".join(lines), "unknown or scalar top key before line %d" % (i + 1), False


# ---- cases ------------------------------------------------------------------------------

class Case:
    """One fuzz case: input files (name -> text), a command, a description."""

    def __init__(self, number):
        self.number = number
        self.files = {}
        self.argv = []
        self.what = []
        self.big = False
        self.must_refuse = ""  # what makes the input invalid whatever the keys say
        self.command = "run"
        self.timeout_s = 0


OTHER_KIND = re.compile(r"^(topology\.(x|y|z|terminals_per_node|mesh|file)|link\.[xyzabc]\.|"
                        r"router\.vc_buffer_bytes\.[xyzabc]$)")


def random_sets(rng, keys, count):
    """`--set` arguments for count random keys; returns (argv, descriptions, big)."""
    argv, what, big = [], [], False
    pool = sorted(keys)
    if rng.random() < 0.75:
        # Mostly keys of the shipped (dragonfly) scenarios: another kind's key only exits 2.
        pool = [k for k in pool if not OTHER_KIND.search(k)]
    for key in rng.sample(pool, count):
        value = value_for(rng, key, keys[key])
        argv += format_set(key, value)
        what.append("--set %s=%s" % (key, value))
        big = big or is_big(value, key)
    return argv, what, big


# Plausible values by the key's unit or name, for valid combinations (first match wins).
PLAUSIBLE = [(r"(^|\.)(a|p|h)$", [1, 2, 3, 4]), (r"\.g$", [0, 2, 3, 5, 9]),
             (r"ranks$", [0, 1, 2, 3, 5, 8, 16, 32, 72]), (r"root$|first_terminal$", [0, 1, 5, 71]),
             (r"vcs$", [1, 2, 3, 4]), (r"seed$", [0, 1, 2, 12345]),
             (r"load$", [0.01, 0.1, 0.5, 0.9, 1]), (r"gib_per_s$", [0.5, 1, 5.25, 21]),
             (r"mhz$", [100, 1000, 2000]), (r"cycles$", [0, 1, 2, 4, 50]),
             (r"_ns$", [0, 1, 10, 100, 300, 2000]), (r"packet_bytes$", [64, 100, 512, 4096]),
             (r"bytes", [1, 64, 512, 1024, 4096, 16384]),
             (r"", [1, 2, 4, 8])]


def valid_sets(rng, keys, count):
    """`--set` arguments with allowed, plausible values (deep runs, not refusals)."""
    pool = [k for k in sorted(keys) if not OTHER_KIND.search(k)
            and not k.startswith(("trace.", "sim.", "topology.kind", "ragasa.model"))]
    argv, what = [], []
    for key in rng.sample(pool, min(count, len(pool))):
        allowed = keys[key]
        if isinstance(allowed, list):
            value = rng.choice(allowed)
        else:
            values = next(v for pat, v in PLAUSIBLE if re.search(pat, key))
            lo, hi = (numeric(x) for x in allowed) if allowed else (None, None)
            values = [v for v in values if lo is None or lo <= v <= hi] or [lo]
            value = rng.choice(values)
        argv += format_set(key, value)
        what.append("--set %s=%s" % (key, value))
    return argv, what


def valid_case(rng, case, keys, texts):
    """run or analyze of a small shipped scenario with a valid random --set combination."""
    base = rng.choice(["default.yaml", "ragasa/df72.yaml", "traffic/df72-uniform.yaml"])
    case.command = "analyze" if rng.random() < 0.15 else "run"
    case.what.append("%s %s, valid --set" % (case.command, base))
    case.files["case.yaml"] = texts[base]
    sets, what = valid_sets(rng, keys, rng.randint(2, 6))
    case.argv = [case.command, "in/case.yaml", "--out", "out", "-q"] + sets
    case.what += what
    case.timeout_s = 8
    # Unlimited traffic or tiny links may run long; a timeout is a finding only without them.
    case.big = any(re.search(r"(load|bandwidth_gib_per_s|mhz)=(0\.|1$)", w) for w in what)
    case.big = case.big or any(is_big(v.split("=", 1)[1], v.split("=", 1)[0][6:]) for v in what)


def odd_cli(rng):
    """An unusual flag or path; returns (argv, description, big)."""
    choice = rng.randrange(8)
    if choice == 0:
        v = rng.choice(BOUNDARY)
        return ["--seed", v], "--seed %s" % v, False
    if choice == 1:
        v = rng.choice(["out/w.vcd", "out", "/nonexistent/x.vcd", "/dev/full", "", "out/w"])
        return ["--vcd", v], "--vcd %r" % v, False
    if choice == 2:
        v = rng.choice(["noequals", "=1", "a.b.c.d=1", "collective.bytes=", "seed==1",
                        "collective..bytes=1", "topology=1", ".=."])
        return ["--set", v], "--set %r" % v, False
    if choice == 3:
        return ["--out", "in/case.yaml"], "--out is a file", False
    if choice == 4:
        return ["--unknown-flag"], "unknown flag", False
    if choice == 5:  # (NOT_A_SCENARIO: these must exit 2)
        # Not a scenario file: replaces in/case.yaml (the last such path wins or is refused).
        v = rng.choice(["in", "/dev/null", "/dev/zero", "/proc/self/mem", "in/missing.yaml",
                        "/etc/shadow-none", "in/default.yaml", ""])
        return ["@scenario", v], "scenario %r" % v, False
    return [], "", False


def must_refuse(mutations):
    """A lone duplicated key line or a second YAML document must exit 2 (yaml-cpp reads
    only the first document, and takes the last of duplicate keys)."""
    if len(mutations) != 1:
        return ""
    if mutations[0].startswith("duplicate line"):
        return "duplicate key"
    if mutations[0].startswith("document separator after keys"):
        return "second YAML document"
    return ""


def scenario_case(rng, case, keys, texts):
    """run or analyze: a mutated shipped scenario, and/or random --set combinations."""
    base = rng.choice(SCENARIOS)
    text = texts[base]
    case.command = "analyze" if rng.random() < 0.25 else "run"
    case.what.append("%s %s" % (case.command, base))
    mutations = []
    for _ in range(rng.choice([0, 1, 1, 1, 2, 3])):
        text, what, big = mutate_text(rng, text, keys)
        mutations.append(what)
        case.what.append(what)
        case.big = case.big or big
    case.must_refuse = must_refuse(mutations)
    case.files["case.yaml"] = text
    case.argv = [case.command, "in/case.yaml", "--out", "out", "-q"]
    sets, what, big = random_sets(rng, keys, rng.choice([0, 0, 1, 2, 3, 4]))
    case.argv += sets
    case.what += what
    case.big = case.big or big
    if rng.random() < 0.15:
        argv, what, big = odd_cli(rng)
        if case.command == "analyze" and "--vcd" in argv:
            argv = []
        if argv[:1] == ["@scenario"]:
            case.argv[1], argv = argv[1], []
        case.argv += argv
        case.big = case.big or big
        case.what += [what] if what else []
    case.timeout_s = 8


def study_case(rng, case, keys, texts):
    """sweep: a mutated shipped study (shrunk to a few points), sometimes only --list."""
    base = rng.choice(STUDIES)
    text = texts[base]
    case.command = "sweep"
    case.what.append("sweep %s" % base)
    mutations = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        text, what, big = mutate_text(rng, text, keys)
        mutations.append(what)
        case.what.append(what)
        case.big = case.big or big
    if rng.random() < 0.3:
        # A --set style key inside cross/set: a random key with a boundary or allowed value.
        key = rng.choice(sorted(keys))
        value = value_for(rng, key, keys[key])
        if "\nset:" not in text:
            text += "\nset: {%s: %s}\n" % (key, value)
            case.what.append("set %s: %s" % (key, value))
            case.big = case.big or is_big(value, key)
    case.must_refuse = must_refuse(mutations)
    case.files["case.yaml"] = text
    case.argv = ["sweep", "in/case.yaml", "--out", "out", "-j", "1", "-q"]
    if rng.random() < 0.25:
        case.argv.append("--list")
    if rng.random() < 0.9:
        case.argv.append("--no-plots")
    case.timeout_s = 30


def make_case(seed, number, keys, texts):
    rng = random.Random("%s:%d" % (seed, number))
    case = Case(number)
    for name in ("default.yaml", "df72.yaml"):
        case.files[name] = texts["ragasa/df72.yaml" if name == "df72.yaml" else name]
    r = rng.random()
    if r < 0.25:
        valid_case(rng, case, keys, texts)
    elif r < 0.75:
        scenario_case(rng, case, keys, texts)
    else:
        study_case(rng, case, keys, texts)
    return case


# ---- running and checking ---------------------------------------------------------------

def limit_child():
    """Keep a runaway case from taking the machine: 4 GiB of memory, no core, 256 MiB files."""
    os.setsid()
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 20, 256 << 20))


def run_case(binary, case, work):
    """Runs a case in its own folder; returns (exit code or None on timeout, out, err)."""
    os.makedirs(os.path.join(work, "in"))
    for name, text in case.files.items():
        with open(os.path.join(work, "in", name), "w", encoding="latin-1", errors="replace") as f:
            f.write(text)
    proc = subprocess.Popen([binary] + case.argv, cwd=work, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=limit_child)
    try:
        out, err = proc.communicate(timeout=case.timeout_s)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        rc = None
    return rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def check_result(d):
    """Problems in one result.json: packet conservation, incomplete ranks, traffic balance."""
    problems = []
    p = d.get("packets")
    if not isinstance(p, dict) or "injected" not in p or "delivered" not in p:
        return ["result.json has no packets.injected/delivered"]
    units = (d.get("ragasa") or {}).get("units") or {}
    entered = p["injected"] + units.get("packets_out", 0)
    left = p["delivered"] + units.get("packets_in", 0) + p.get("dropped", 0)
    if entered != left:
        problems.append("conservation: injected %s + unit copies %s != delivered %s + unit "
                        "inputs %s + dropped %s" % (p["injected"], units.get("packets_out", 0),
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


# A SystemC report, also when bcastsim only passes it on ("simulation error at 0 s: Warning:").
SYSTEMC_LINE = re.compile(r"(Warning|Info|Error): \(\w\d+\)|^In (file|process): |^\s*$")


def message_lines(err):
    """stderr without SystemC's report lines and bcastsim's prefixes."""
    lines = []
    for line in err.splitlines():
        if SYSTEMC_LINE.search(line) or line.startswith("Run with --help"):
            continue
        lines.append(re.sub(r"^bcastsim: (error: |simulation failed: )?", "", line))
    return lines


# Scenario paths that are no scenario file: a run must refuse them (exit 2).
NOT_A_SCENARIO = ["in", "/dev/zero", "/proc/self/mem", "in/missing.yaml", "/etc/shadow-none",
                  ""]


def check_case(case, rc, out, err, work):
    """Findings of one finished case: a list of (kind, detail)."""
    if rc is None:
        return [] if case.big else [("timeout", "no exit after %d s" % case.timeout_s)]
    found = []
    if case.must_refuse and rc == 0:
        found.append(("accepted", "exit 0 with a %s" % case.must_refuse))
    if case.command != "sweep" and case.argv[1] in NOT_A_SCENARIO and rc != 2:
        found.append(("not-a-file", "scenario %r accepted (exit %d)" % (case.argv[1], rc)))
    if rc < 0:
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
    if rc == 1 and re.search(r"expected bytes .* but got", err):
        # The hosts match messages in posting order (MPI non-overtaking): a valid scenario
        # never fails so, whatever the routing (issue 13, reproduction 4).
        found.append(("exit-1-mismatch", "exit 1: a receive matched the wrong message"))
    if rc == 1 and not found and not message_lines(err + "\n" + out):
        found.append(("exit-1-systemc-only", "exit 1 with only a SystemC report"))
    out_dir = os.path.join(work, "out")
    if os.path.isdir(out_dir) and case.argv and "--list" not in case.argv:
        for p in check_outputs(out_dir, rc == 0, case.command):
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


def signature(kind, detail, err):
    """What groups findings in the summary: the kind and the first message line, digits out."""
    reports = [l for l in err.splitlines() if re.match(r"^(Error|Warning): \(", l)]
    first = (reports if kind != "exit-1" and reports else message_lines(err) or [""])[0]
    if kind in ("accepted", "not-a-file", "timeout"):
        first = detail
    elif kind != "crash-text":
        first = detail + " | " + first
    return kind + ": " + re.sub(r"\d+", "N", re.sub(r"'[^']*'", "'…'", first))[:160]


def save_finding(folder, seed, case, work, rc, out, err, found):
    dest = os.path.join(folder, "case-%s-%d" % (seed, case.number))
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(work, dest, symlinks=True)
    with open(os.path.join(dest, "README.txt"), "w") as f:
        f.write("seed %s case %d: %s\n" % (seed, case.number, "; ".join(case.what)))
        f.write("repeat: cd %s && %s\n" % (shlex.quote(dest), " ".join(
            shlex.quote(a) for a in ["BCASTSIM"] + case.argv)))
        f.write("exit: %s\n" % ("timeout" if rc is None else rc))
        for kind, detail, item in found:
            f.write("finding: %s: %s%s\n" % (kind, detail, " (known: %s)" % item if item else ""))
        f.write("--- stdout\n%s\n--- stderr\n%s\n" % (out[-4000:], err[-4000:]))


def fuzz_one(args, keys, texts, number):
    case = make_case(args.seed, number, keys, texts)
    work = tempfile.mkdtemp(prefix="case-%d-" % number, dir=args.work)
    try:
        started = time.monotonic()
        rc, out, err = run_case(args.binary, case, work)
        case.wall_s = time.monotonic() - started
        found = [(k, d, classify(k, d, err + "\n" + out, case.argv))
                 for k, d in check_case(case, rc, out, err, work)]
        if found and args.findings:
            save_finding(args.findings, args.seed, case, work, rc, out, err, found)
        return case, rc, err + "\n" + out, found
    finally:
        shutil.rmtree(work, ignore_errors=True)


def report(args, results, elapsed_s):
    """Prints the summary; returns the number of findings that fail the run."""
    codes, exit1, groups = {}, {}, {}
    for case, rc, err, found in results:
        codes[rc] = codes.get(rc, 0) + 1
        if rc == 1 and not found:
            sig = signature("exit-1", "", err)
            item = classify("exit-1", "", err, case.argv)
            exit1.setdefault(sig + (" [%s]" % item if item else ""), []).append(case.number)
        for kind, detail, item in found:
            g = groups.setdefault(signature(kind, detail, err), [item, []])
            g[1].append(case)
    print("fuzz: seed %s, %d cases in %.0f s; exit codes: %s" % (
        args.seed, len(results), elapsed_s,
        ", ".join("%s: %d" % ("timeout" if k is None else k, v)
                  for k, v in sorted(codes.items(), key=lambda kv: str(kv[0])))))
    print("  exit 1 (a failed run is allowed; the reasons, for reading):")
    for sig, numbers in sorted(exit1.items(), key=lambda kv: -len(kv[1])):
        print("    %4d  %s (e.g. case %d)" % (len(numbers), sig[len("exit-1: "):], numbers[0]))
    walls = {}
    for case, _, _, _ in results:
        walls.setdefault(case.command, []).append(getattr(case, "wall_s", 0))
    print("  wall per case: " + ", ".join("%s %d x %.2f s" % (c, len(w), sum(w) / len(w))
                                         for c, w in sorted(walls.items())))
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
    print("fuzz: %d finding(s)%s" % (failing, ", known ones allowed" if args.allow_known else ""))
    if args.findings and groups:
        print("fuzz: inputs, commands and outputs in %s" % args.findings)
    return failing


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
