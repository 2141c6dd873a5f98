#!/usr/bin/env python3
"""The cases of scripts/fuzz.py (issue 39): valid small scenarios of every kind, family and
algorithm, mutated (fuzz_scenarios.py); analyze against run; graph files written by
`bcastsim graph` and mutated; cosim of both blocks on random stimulus and on recordings;
sweeps with --only, resume and a kill in the middle; outputs aimed at devices and FIFOs;
and issue 13's mutations of the shipped files (fuzz_cases.py). A case is a function of
(seed, number) alone. Standard library only."""

import random
import re
import signal

from fuzz_cases import Case, Step, legacy_case, mutate_text, random_sets
import fuzz_scenarios  # its HAS_RTL, which fuzz.py sets at the start
from fuzz_scenarios import (COMBOS, base_keys, family_of, kind_of, render, tags_of,
                            vary)
from fuzz_checks import (compare_results, analyze_agrees, csv_equal, node_kept, file_made,
                         mutate_graph, mutate_recording, edit_graph, no_waveform)

# One cycle of case types; a case's type is its number's slot in the cycle, so that a bounded
# run covers every type and (through the scenario slots) every combo in a few cycles.
CYCLE = (["scenario"] * 9 + ["analyze-vs-run"] * 2 + ["graph"] * 2 + ["cosim"] * 2 +
         ["sweep", "odd"] + ["legacy"] * 3)
SCENARIO_SLOTS = CYCLE.count("scenario")


def run_argv(command, out="out", scenario="in/case.yaml"):
    return [command, scenario, "--out", out, "-q"]


def pick_combo(seed, number, rng):
    """The combo of a scenario slot: every combo once per round, in a seed-shuffled order;
    round 0 plain, round 1 with valid variations, later rounds varied and 45 % mutated (most
    mutations end in exit 2, and a long run must still simulate 40 % of its run cases)."""
    cycle, slot = divmod(number, len(CYCLE))
    index = cycle * SCENARIO_SLOTS + CYCLE[:slot].count("scenario")
    order = list(range(len(COMBOS)))
    random.Random("order:%s" % seed).shuffle(order)
    rnd, i = divmod(index, len(COMBOS))
    return COMBOS[order[i]], rnd


def add_graph_steps(rng, case, shape, keys, where="in/g.yaml"):
    """`bcastsim graph` of the shape's own scenario into `where`; keys then name the file."""
    case.files["shape.yaml"] = render(base_keys(shape.split(":")[1], "binomial", {}))
    case.steps.append(Step(["graph", "in/shape.yaml", "--file", where], "graph",
                           expect=0))
    for k in [k for k in keys if k.startswith("topology.")]:
        del keys[k]
    keys["topology.kind"] = "graph"
    keys["topology.file"] = "@WORK/" + where


def never_stalls(i):
    """Ragasa's units cannot deadlock (hw/ragasa/README.md): a valid run of theirs never ends
    with exit 1 (a stall, or the time limit reached with work left)."""
    def check(work, rcs):
        return [("ragasa-stall", "exit 1: Ragasa's run did not finish")] if rcs[i] == 1 else []
    return check


def scenario_case(rng, case, keys_table, seed):
    """run (or analyze) of a valid combo, varied and, from round 2 on, mutated."""
    (shape, algo, extra), rnd = pick_combo(seed, case.number, rng)
    keys = base_keys(shape, algo, extra)
    case.what.append("%s %s round %d" % (shape, algo, rnd))
    if shape.startswith("graph:"):
        add_graph_steps(rng, case, shape, keys)
    if rnd >= 1:
        case.what += vary(rng, keys, rng.choice([1, 1, 2, 3]))
    command = "analyze" if rng.random() < 0.2 else "run"
    case.tags = dict(tags_of(shape, keys), command=command)
    mutated = rnd >= 2 and rng.random() < 0.45
    if shape.startswith("graph:"):
        if rnd >= 2 and rng.random() < 0.3:
            case.steps.append(Step(action=mutate_graph(rng, "in/g.yaml"), command="mutate"))
    relative = (shape.startswith("graph:") and len(case.steps) == 1 and not mutated
                and rng.random() < 0.2)
    if relative:
        # Relative to the scenario file that names it (README), not to the working folder.
        keys["topology.file"] = "g.yaml"
        case.what.append("topology.file relative to the scenario")
    if keys.get("topology.kind") == "torus" and rnd >= 1 and rng.random() < 0.3:
        keys["topology.mesh"] = rng.choice(["x", "x,z", "[y, c]", "x,x", "[b, b]"])
        case.what.append("topology.mesh: %s" % keys["topology.mesh"])
    text = render(keys)
    step = Step(run_argv(command), command)
    if not mutated and re.search(r"(\w), *\1\b", str(keys.get("topology.mesh", ""))):
        # (a mutation may cut or change the line: then only the usual checks apply)
        step.must_refuse = "dimension named twice in topology.mesh"
    if mutated:
        for _ in range(rng.choice([1, 1, 2])):
            text, what, big = mutate_text(rng, text, keys_table)
            case.what.append(what)
            step.big = step.big or big
        if rng.random() < 0.3:
            sets, what, big = random_sets(rng, keys_table, 1)
            step.argv += sets
            case.what += what
            step.big = step.big or big
    elif rnd == 0:
        step.expect = 0  # a valid combo as it is: it must run
    elif relative:
        # Varied combos may be refused (an allgather needing 2^k ranks), but never for the
        # graph file they name relative to the scenario.
        step.must_not_name = "topology.file"
    case.files["case.yaml"] = text
    fam = family_of(algo)
    if fam == "ragasa" and command == "run" and not mutated:
        case.post.append(never_stalls(len(case.steps)))  # hw/ragasa/README.md
    if (command == "run" and fam in ("ragasa", "tofu2", "lanai", "galaxy")
            and keys.get("tofu2.mode") != "host" and rng.random() < 0.3):
        step.argv += ["--record-unit-inputs", "out/rec.jsonl"]
        case.what.append("--record-unit-inputs")
        if fam in ("ragasa", "tofu2"):
            case.post.append(file_made(len(case.steps), "out/rec.jsonl"))
        else:  # only Ragasa's and Tofu2's units record: refused, never silently ignored
            step.expect = 2
    if command == "run" and rng.random() < 0.08:
        step.argv += ["--vcd", "out/w.vcd"]
        case.what.append("--vcd")
    case.main = len(case.steps)
    case.steps.append(step)
    if command == "run" and rng.random() < 0.15:
        argv = ["again" if a == "out" else a.replace("out/", "again/") for a in step.argv]
        case.steps.append(Step(argv, "run", out="again", requires_ok=True))
        case.post.append(compare_results(case.main, "out", "again", "same seed, same result"))
        case.what.append("rerun")


def analyze_vs_run_case(rng, case, seed):
    """run and analyze of one valid scenario under minimal routing: the traversals per class
    agree (README's analyze paragraph); and analyze never accepts what run refuses."""
    shape, algo, extra = rng.choice(COMBOS)
    keys = base_keys(shape, algo, extra)
    if rng.random() < 0.5:
        case.what += vary(rng, keys, 1)
    keys.pop("routing.kind", None)
    if rng.random() < 0.35:
        # Inputs run must refuse: analyze must too (one check for both).
        bad = [("fault.drop_packet", "link_nic_0:18446744073709551616"),
               ("collective.root", 99999), ("fault.drop_rate", 0.5),
               ("collective.ranks", "0-3,2")]
        if family_of(algo) == "tofu2":
            bad += [("job.ranks_per_node", 4), ("job.ranks_per_node", 2)] * 2
        if "nic.kind" in keys or family_of(algo) == "lanai":
            bad += [("fault.drop_packet", "link_nic_0:18446744073709551616")] * 2
        bad = rng.choice(bad)
        keys[bad[0]] = bad[1]
        case.what.append("%s: %s" % bad)
    case.what.insert(0, "analyze vs run: %s %s" % (shape, algo))
    case.tags = dict(tags_of(shape, keys), command="analyze-vs-run")
    if shape.startswith("graph:"):
        add_graph_steps(rng, case, shape, keys)
    case.files["case.yaml"] = render(keys)
    case.main = len(case.steps)
    case.steps.append(Step(run_argv("run"), "run"))
    case.steps.append(Step(run_argv("analyze", "an"), "analyze", out="an"))
    # Every family's traversals agree (the offloads' hardware messages counted too), but
    # analyze models neither traffic nor faults (drops resent by LANai's GM): those cases
    # compare exit codes only.
    compare = (algo != "none" and "traffic.kind" not in keys
               and not any(k.startswith("fault.") for k in keys))
    case.post.append(analyze_agrees(case.main, "out", "an", compare))


def graph_case(rng, case, seed):
    """`bcastsim graph` of a small network, read back: a dragonfly or one Myrinet crossbar
    runs as the built-in one (README); a mutated file is refused by line, never a crash."""
    shape = rng.choice(["dragonfly", "dragonfly72", "myrinet", "myrinet16", "torus",
                        "galaxyfly"])
    algo = rng.choice(["binomial", "glf", "allgather-ring"])
    keys = base_keys(shape, algo, {})
    fmt = rng.choice(["yaml", "yaml", "txt"])
    case.what.append("graph %s (%s), %s" % (shape, fmt, algo))
    case.tags = {"kind": "graph", "family": "host", "algorithm": algo, "command": "graph"}
    case.files["shape.yaml"] = render(keys)
    case.modes = (("../out", "dir"),)  # --file names a file in an existing folder
    where = "out/g." + fmt
    case.steps.append(Step(["graph", "in/shape.yaml", "--file", where], "graph",
                           expect=0))
    case.main = 0
    gkeys = dict((k, v) for k, v in keys.items() if not k.startswith("topology."))
    gkeys.update({"topology.kind": "graph", "topology.file": "@WORK/" + where})
    case.files["graph.yaml"] = render(gkeys)
    if rng.random() < 0.35:
        case.steps.append(Step(action=mutate_graph(rng, where), command="mutate"))
        case.steps.append(Step(run_argv("run", "run_g", "in/graph.yaml"), "run", out="run_g"))
        return
    case.steps.append(Step(run_argv("run", "run_g", "in/graph.yaml"), "run", out="run_g",
                           expect=0, requires_ok=True))
    if shape in ("dragonfly", "dragonfly72", "myrinet", "myrinet16"):
        case.steps.append(Step(run_argv("run", "run_b", "in/shape.yaml"), "run", out="run_b"))
        case.post.append(compare_results(1, "run_g", "run_b", "graph round trip",
                                         only=("collective", "traversals")))


def cosim_case(rng, case, seed):
    """cosim of the Bcast Unit or the Tofu2 command queue: random stimulus, or the replay of
    a run's recording, sometimes mutated (exit 2 naming the field) or not a file at all."""
    block = rng.choice(["bcast-unit", "tofu2-cq"])
    dut = rng.choice(["rtl", "rtl", "systemc"] if block == "tofu2-cq" else ["rtl"])
    if not fuzz_scenarios.HAS_RTL:
        dut = "systemc"
    tail = ["--block", block, "--dut", dut, "--json", "out/c.json", "-q"]
    case.modes = (("../out", "dir"),)  # --json names a file in an existing folder
    case.tags = {"kind": "-", "family": "ragasa" if block == "bcast-unit" else "tofu2",
                 "algorithm": block, "command": "cosim"}
    r = rng.random()
    if r < 0.45:
        first = rng.choice([rng.randint(1, 500), rng.randint(1, 500), 0, 2 ** 64 - 1])
        last = min(first + rng.randint(0, 2), 2 ** 64 - 1)
        seeds = (["--seed", str(first)] if rng.random() < 0.6 else
                 ["--seeds", "%d-%d" % (first, last)])  # the edges of the allowed range too
        case.steps.append(Step(["cosim"] + seeds + ["--random-cycles",
                                                    str(rng.choice([500, 2000, 5000]))] + tail,
                               "cosim", expect=0, timeout_s=20))
        case.what.append("cosim %s %s random %s" % (block, dut, " ".join(seeds)))
        return
    if r < 0.9:
        if block == "bcast-unit":
            keys = base_keys("dragonfly", "ragasa", {"collective.bytes": rng.choice([512, 4096])})
        else:
            keys = base_keys("torus4", rng.choice(["tofu2-pipeline", "tofu2-trinaryx3"]),
                             {"collective.bytes": 4096})
        case.files["case.yaml"] = render(keys)
        case.steps.append(Step(run_argv("run", "rec") + ["--record-unit-inputs", "in/rec.jsonl"],
                               "run", out="rec", expect=0))
        step = Step(["cosim", "--replay", "in/rec.jsonl"] + tail, "cosim", requires_ok=True,
                    timeout_s=20)
        if rng.random() < 0.4:
            case.steps.append(Step(action=mutate_recording(rng, "in/rec.jsonl"), command="mutate"))
            case.what.append("cosim %s replay, recording mutated" % block)
        else:
            step.expect = 0
            case.what.append("cosim %s replay of %s" % (block, keys["collective.algorithm"]))
        case.main = len(case.steps)
        case.steps.append(step)
        return
    # Not a replay file: a FIFO, an endless device, a folder (inside the case's folder).
    kind = rng.choice(["fifo", "zero", "dir", "empty"])
    case.modes += (("src", kind),)
    case.steps.append(Step(["cosim", "--replay", "in/src"] + tail, "cosim", expect=2,
                           timeout_s=6))
    case.what.append("cosim %s --replay of a %s" % (block, kind))


def study_text(keys, cross, extra=""):
    return ("name: fz\nscenario: base.yaml\ncommand: run\nseed: 3\n%scross:\n%s" %
            (extra, "".join("  %s: [%s]\n" % (k, ", ".join(str(v) for v in vs))
                            for k, vs in cross)))


def sweep_case(rng, case, seed):
    """A small study: --only then the rest; or killed in the middle and resumed; or its
    graph file edited between runs. Each must end with the CSV a fresh whole run gives."""
    shape = rng.choice(["dragonfly", "torus", "myrinet", "galaxyfly"])
    algo = rng.choice(["binomial", "glf", "ragasa", "allgather-bruck"])
    keys = base_keys(shape, algo, {})
    mode = rng.choice(["only", "kill", "kill", "graph"])
    case.tags = dict(tags_of(shape, keys), command="sweep")
    if mode == "graph":
        add_graph_steps(rng, case, "graph:" + shape, keys)
        case.tags["kind"] = "graph"
    case.files["base.yaml"] = render(keys)
    cross = [("collective.bytes", [512, 4096])]
    if rng.random() < 0.5:
        cross.append(("collective.root", [0, 1]))
    case.files["case.yaml"] = study_text(keys, cross)
    argv = ["sweep", "in/case.yaml", "--out", "out", "--no-plots", "-q", "-j",
            rng.choice(["1", "2"])]
    case.what.append("sweep %s %s (%s)" % (shape, algo, mode))
    if mode == "only":
        case.steps.append(Step(argv + ["--only", "collective.bytes=512"], "sweep", expect=0,
                               timeout_s=30))
    elif mode == "kill":
        sig = rng.choice([signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
        after = rng.choice([0.05, 0.2, 0.4, 0.8])
        case.steps.append(Step(argv, "sweep", timeout_s=30, kill=(after, sig)))
        case.what.append("%s after %.2f s" % (sig.name, after))
    else:
        case.steps.append(Step(argv, "sweep", expect=0, timeout_s=30))
        case.steps.append(Step(action=edit_graph(rng, "in/g.yaml"), command="mutate"))
    case.main = len(case.steps)
    case.steps.append(Step(argv, "sweep", expect=0, timeout_s=30))
    case.steps.append(Step([a if a != "out" else "fresh" for a in argv], "sweep", out="fresh",
                           timeout_s=30))
    case.post.append(csv_equal(case.main, "out", "fresh"))


def full_disk_case(rng, case):
    """A waveform onto a nearly full tmpfs (mounted in the case's folder; skipped where mount
    is denied): exit 1 or 2 with the write error in time, and no waveform left behind."""
    what = rng.choice(["run-rtl", "run", "cosim", "cosim-cq"])
    dut = "rtl" if fuzz_scenarios.HAS_RTL else "systemc"
    if what == "run-rtl" and not fuzz_scenarios.HAS_RTL:
        what = "run"
    case.modes = (("../full", "tmpfs"),)
    if what.startswith("run"):
        sets = ["--set", "trace.blocks=unit_0"] + (["--set", "ragasa.model=rtl"]
                                                   if what == "run-rtl" else [])
        argv = run_argv("run") + ["--vcd", "full/w.vcd"] + sets
    else:
        argv = ["cosim", "--dut", dut, "--seed", "3", "--random-cycles", "3000", "--vcd",
                "full", "-q"] + (["--block", "tofu2-cq"] if what == "cosim-cq" else [])
    step = Step(argv, argv[0], timeout_s=5, out="full")  # a healthy one: 0.5 s idle
    case.steps.append(step)
    case.what.append("%s --vcd on a full disk" % what)
    case.tags = {"kind": "dragonfly", "family": "ragasa", "algorithm": "ragasa",
                 "command": "full-disk"}
    case.post.append(no_waveform("full"))


def odd_case(rng, case, seed):
    """Outputs aimed at a FIFO, a device, a folder; sweep -j out of range; a run's waveform
    interrupted by a signal; a full disk. Each must be refused (exit 2) or clean up."""
    r = rng.randrange(4)
    keys = base_keys("dragonfly", "ragasa", {})
    case.files["case.yaml"] = render(keys)
    if r == 0:
        kind = rng.choice(["fifo", "null", "dir"])
        case.modes = (("dst", kind),)
        flag = rng.choice(["graph", "cosim", "record", "vcd"])
        argv = {"graph": ["graph", "in/case.yaml", "--file", "in/dst"],
                "cosim": ["cosim", "--seed", "1", "--random-cycles", "500", "--json", "in/dst"],
                "record": run_argv("run") + ["--record-unit-inputs", "in/dst"],
                "vcd": run_argv("run") + ["--vcd", "in/dst"]}[flag]
        case.steps.append(Step(argv, argv[0], expect=2, timeout_s=6))
        case.post.append(node_kept("in/dst", kind))
        case.what.append("%s output at a %s" % (flag, kind))
        case.tags = {"kind": "dragonfly", "family": "ragasa", "algorithm": "ragasa",
                     "command": "output-at-device"}
    elif r == 1:
        j = rng.choice(["-1", "-5", "4294967297", "18446744073709551617"])  # 0: the default
        case.files["base.yaml"] = case.files["case.yaml"]
        case.files["case.yaml"] = study_text(keys, [("collective.bytes", [512])])
        case.steps.append(Step(["sweep", "in/case.yaml", "--out", "out", "--no-plots", "-q",
                                "-j", j], "sweep", expect=2, timeout_s=20))
        case.what.append("sweep -j %s" % j)
        case.tags = {"kind": "dragonfly", "family": "ragasa", "algorithm": "ragasa",
                     "command": "sweep-bad-jobs"}
    elif r == 3:
        full_disk_case(rng, case)
    else:
        sig = rng.choice([signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
        keys = base_keys("dragonfly72", "binomial", {"collective.bytes": 1048576})
        case.files["case.yaml"] = render(keys)
        after = rng.choice([0.1, 0.3, 0.6])
        case.steps.append(Step(run_argv("run") + ["--vcd", "out/w.vcd"], "run", timeout_s=20,
                               kill=(after, sig)))
        case.what.append("run --vcd, %s after %.1f s" % (sig.name, after))
        case.tags = {"kind": "dragonfly", "family": "host", "algorithm": "binomial",
                     "command": "run-killed"}


def make_case(seed, number, keys, texts):
    rng = random.Random("%s:%d" % (seed, number))
    kind = CYCLE[number % len(CYCLE)]
    if kind == "legacy":
        case = legacy_case(rng, number, texts, keys)
        case.steps = [case]
        return case
    case = Case(number)
    if kind == "scenario":
        scenario_case(rng, case, keys, seed)
    elif kind == "analyze-vs-run":
        analyze_vs_run_case(rng, case, seed)
    else:
        {"graph": graph_case, "cosim": cosim_case, "sweep": sweep_case,
         "odd": odd_case}[kind](rng, case, seed)
    step = case.steps[case.main]
    case.argv, case.command, case.timeout_s = step.argv, step.command, step.timeout_s
    return case
