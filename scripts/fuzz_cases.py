#!/usr/bin/env python3
"""The inputs scripts/fuzz.py runs: the shipped scenarios and studies mutated, `--set`
combinations, odd command lines. Each case is a function of (seed, case number) alone.
Standard library only."""

import os
import random
import re
import subprocess

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
    if key == "traffic.message_bytes" and 0 < f < 64:
        return True  # at a fixed load, a message per few bytes: millions in 50 us (12 s)
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

class Step:
    """One command of a case, run in the case's folder; or, with `action`, a Python step
    between commands (it edits a file and returns what it did)."""

    def __init__(self, argv=None, command="run", timeout_s=8, out="out", **kw):
        self.argv = argv or []
        self.command = command
        self.timeout_s = timeout_s
        self.out = out  # the output folder its checks read
        self.big = False
        self.must_refuse = ""  # what makes the input invalid whatever the keys say
        self.must_not_name = ""  # a key an exit 2 must not blame (an input known good)
        self.expect = None  # an exit code this step must give (None: any of 0, 1, 2)
        self.kill = None  # (seconds, signal): signal the process after that long
        self.requires_ok = False  # run only when the previous command exited 0
        self.action = None
        self.__dict__.update(kw)


class Case(Step):
    """One fuzz case: input files (name -> text), its steps (a one-command case is its own
    step), checks across steps, the classes it covers (`tags`) and a description."""

    def __init__(self, number):
        super().__init__(timeout_s=0)
        self.number = number
        self.files = {}
        self.what = []
        self.steps = []
        self.main = 0  # the step whose exit code is the case's outcome
        self.post = []  # callables (work, rcs) -> [(kind, detail)]
        self.tags = {}
        self.modes = ()  # file modes to make in in/: (name, "fifo" | "null" | "zero" | "dir")


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
        # A full device made in the case's folder: never the machine's own /dev/full, which
        # a write-then-rename would replace (we run as root).
        v = rng.choice(["out/w.vcd", "out", "/nonexistent/x.vcd", "in/dev-full", "", "out/w"])
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
        if "in/dev-full" in argv:
            case.modes += (("dev-full", "full"),)
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


def legacy_case(rng, number, texts, keys):
    """The issue-13 cases: shipped scenarios and studies mutated, mostly bad input."""
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
    case.tags = {"command": case.command, "source": "shipped"}
    return case
