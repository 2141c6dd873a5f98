#!/usr/bin/env python3
"""Valid small scenarios for scripts/fuzz.py (issue 39): every topology kind, every offload
family and NIC kind, every algorithm, `collectives:` lists with `after`, `repeat` and `roots:
all`, fault injection. Each is a mapping of dotted keys (plus an optional `collectives:` list)
that `render` writes as YAML; a case then mutates it a little, mostly within allowed values.
Networks are small so that a case runs in well under a second. Standard library only."""

import math
import re

# Shapes: (topology kind, dotted keys). Small networks of each kind.
SHAPES = {
    "dragonfly": {"topology.kind": "dragonfly", "topology.a": 2, "topology.p": 2,
                  "topology.h": 1},
    "dragonfly72": {"topology.kind": "dragonfly", "topology.a": 4, "topology.p": 2,
                    "topology.h": 2},
    "galaxyfly": {"topology.kind": "galaxyfly", "topology.n": 3, "topology.q": 5,
                  "topology.a": 4, "topology.p": 1, "topology.h": 1},
    "torus": {"topology.kind": "torus", "topology.x": 1, "topology.y": 1, "topology.z": 1,
              "topology.terminals_per_node": 1},
    "torus4": {"topology.kind": "torus", "topology.x": 1, "topology.y": 1, "topology.z": 1,
               "topology.terminals_per_node": 4, "job.ranks_per_node": 1},
    "myrinet": {"topology.kind": "myrinet", "topology.nodes": 8},
    "myrinet16": {"topology.kind": "myrinet", "topology.nodes": 16},
    "clos": {"topology.kind": "myrinet", "topology.nodes": 20},
}

HOST = ["binomial", "glf", "llf", "forest", "scatter-ring-allgather", "scatter-rd-allgather",
        "mpich-auto", "allgather-ring", "allgather-rd", "allgather-bruck", "allgather-mpich"]
TOFU2 = ["tofu2-pipeline", "tofu2-trinary", "tofu2-trinaryx3"]

# Algorithms that need a power-of-two job: their combos give 8 ranks.
POW2 = ("scatter-rd-allgather", "allgather-rd", "nic-rd")

# (shape, algorithm, extra keys): every algorithm on every kind it runs on. The graph kind
# reuses a shape: its case writes that shape's graph file with `bcastsim graph` first.
COMBOS = (
    [("dragonfly", a, {}) for a in HOST + ["ragasa", "none"]] +
    [("torus", a, {}) for a in ["binomial", "forest", "mpich-auto", "allgather-bruck",
                                "ragasa"]] +
    [("myrinet", a, {}) for a in ["glf", "allgather-ring", "ragasa"]] +
    [("clos", a, {}) for a in ["llf", "binomial"]] +
    [("galaxyfly", a, {}) for a in ["binomial", "ragasa"]] +
    [("galaxyfly", a, {"job.ranks_per_node": 1, "collective.bytes": 160})
     for a in ["sfata", "rfata"]] +
    [("dragonfly", "a2a", {"job.ranks_per_node": 1, "collective.bytes": 256})] +
    [("torus4", a, {"tofu2.mode": m}) for a in TOFU2 for m in ("offload", "host")] +
    [("dragonfly", "tofu2-pipeline", {"job.ranks_per_node": 1})] +
    [("myrinet16", a, {"collective.bytes": 64}) for a in ["nic-cb", "nic-rd"]] +
    [("myrinet16", a, {"nic.kind": "lanai"}) for a in ["binomial", "allgather-ring"]] +
    [("graph:dragonfly", a, {}) for a in ["binomial", "forest", "ragasa", "allgather-bruck"]] +
    [("graph:myrinet", "glf", {}), ("graph:torus", "binomial", {}),
     ("graph:galaxyfly", "llf", {})]
)

FAMILY = dict([(a, "host") for a in HOST + ["none"]] + [(a, "tofu2") for a in TOFU2] +
              [("ragasa", "ragasa"), ("sfata", "galaxy"), ("rfata", "galaxy"),
               ("a2a", "galaxy"), ("nic-cb", "lanai"), ("nic-rd", "lanai")])
OFFLOAD = {"ragasa", "tofu2", "galaxy", "lanai"}
# Whether the binary has the verilated models (a build without Verilator, such as the asan
# preset, refuses --dut rtl and ragasa.model = rtl with exit 2): set by fuzz.py's main().
# Where it has none, the RTL draws become their SystemC twins, the random draws unchanged.
HAS_RTL = True


def family_of(algorithm):
    return FAMILY.get(algorithm, "other")


def kind_of(shape):
    """The topology kind a shape name stands for (graph:X is a graph file)."""
    if shape.startswith("graph:"):
        return "graph"
    return re.sub(r"\d+$", "", shape).replace("clos", "myrinet")


def base_keys(shape, algorithm, extra):
    """The dotted keys of one combo, small and valid."""
    keys = {"seed": 1}
    keys.update(SHAPES[shape.split(":")[-1]])
    keys["collective.algorithm"] = algorithm
    keys.setdefault("collective.bytes", 4096)
    if algorithm in POW2:
        keys["job.ranks"] = 8
        keys["job.placement"] = "contiguous"
    if algorithm == "none":
        keys.update({"traffic.kind": "uniform", "traffic.load": 0.2,
                     "traffic.warmup_ns": 200, "traffic.measure_ns": 1000})
    keys.update(extra)
    return keys


# Valid variations, each (name, applies(keys), change(rng, keys)): they keep a scenario valid
# (or, for a few, make it invalid in a way that must be refused by name, never crash).
def _roots_all(rng, k):
    k["collective.roots"] = "all"
    return "collective.roots: all"


def _bytes(rng, k):
    k["collective.bytes"] = rng.choice([0, 1, 64, 511, 512, 513, 4096, 20000])
    return "collective.bytes: %s" % k["collective.bytes"]


def _repeat(rng, k):
    k["collective.repeat"] = rng.choice([1, 2, 3])
    k["collective.mode"] = rng.choice(["blocking", "overlap"])
    k["collective.compute_ns"] = rng.choice([0, 100, 2000])
    return "repeat %s %s" % (k["collective.repeat"], k["collective.mode"])


def _root(rng, k):
    k["collective.root"] = rng.choice([0, 1, 3, 7])
    return "collective.root: %s" % k["collective.root"]


def _placement(rng, k):
    k["job.placement"] = rng.choice(["random", "contiguous"])
    k["job.seed"] = rng.randint(0, 9)
    return "job.placement: %s" % k["job.placement"]


def _routing(rng, k):
    k["routing.kind"] = rng.choice(["minimal", "nonminimal", "adaptive", "adaptive-codes"])
    return "routing.kind: %s" % k["routing.kind"]


# Ragasa's unit parameters and their whole allowed ranges (hw/ragasa/bcast_unit_base.h):
# drawn log-uniformly, so small and huge values both come up. The design admits every
# combination without deadlock (hw/ragasa/README.md); those it cannot run are refused (exit 2).
RAGASA_RANGES = {
    "ragasa.rx_queues": (1, 1024), "ragasa.rx_queue_packets": (1, 10**6),
    "ragasa.membership_entries": (1, 10**6), "ragasa.working_memory_bytes": (1, 2**36),
    "ragasa.descriptor_threshold_bytes": (1, 2**36), "ragasa.reserved_chunks": (1, 10**6),
    "ragasa.work_queue_descriptors": (1, 10**6), "ragasa.send_queue_descriptors": (1, 10**6),
    "ragasa.ri_buffer_bytes": (1, 2**30), "ragasa.credit_packet_bytes": (1, 2**20),
    "ragasa.ri_cycles": (0, 10**6), "ragasa.scheduler_cycles": (0, 10**6),
    "ragasa.descriptor_cycles": (0, 10**6), "ragasa.dispatch_cycles": (0, 10**6),
    "ragasa.send_cycles": (0, 10**6),
}


def _log_uniform(rng, lo, hi):
    if lo == 0 and rng.random() < 0.2:
        return 0
    return int(round(math.exp(rng.uniform(math.log(max(lo, 1)), math.log(hi)))))


def _ragasa(rng, k):
    k["ragasa.relay"] = rng.choice(["node", "unit"])
    what = "ragasa.relay: %s" % k["ragasa.relay"]
    if rng.random() < 0.3 and HAS_RTL:
        k["ragasa.model"] = "rtl"
        what += " rtl"
    if rng.random() < 0.5:
        k["collective.roots"] = "all"
        what += ", roots: all"
    for key in rng.sample(sorted(RAGASA_RANGES), rng.randint(1, 5)):
        k[key] = _log_uniform(rng, *RAGASA_RANGES[key])
        what += ", %s: %s" % (key.split(".")[1], k[key])
    return what


def _segments(rng, k):
    k["tofu2.segments"] = rng.choice([1, 2, 3, 16])
    return "tofu2.segments: %s" % k["tofu2.segments"]


def _fault(rng, k):
    if rng.random() < 0.5:
        k["fault.drop_rate"] = rng.choice([0.01, 0.05, 0.2])
        k["lanai.nack_timeout_us"] = 1
        return "fault.drop_rate: %s" % k["fault.drop_rate"]
    k["fault.drop_packet"] = "link_nic_%d:%d" % (rng.randrange(8), rng.randint(1, 4))
    return "fault.drop_packet: %s" % k["fault.drop_packet"]


def _traffic(rng, k):
    k.update({"traffic.kind": "background", "traffic.mean_interarrival_ns": 2000})
    return "background traffic"


def _collectives(rng, k):
    """A `collectives:` list of 2 or 3 entries with after, repeat, roots: all."""
    algo = k["collective.algorithm"]
    entries = []
    for i in range(rng.randint(2, 3)):
        e = {"name": "c%d" % i}
        if i and rng.random() < 0.7:
            e["after"] = rng.choice([i - 1, "c%d" % (i - 1)])
        if rng.random() < 0.4:
            e["repeat"] = rng.randint(1, 3)
        if rng.random() < 0.4:
            e["roots"] = "all"
        if rng.random() < 0.3:
            e["bytes"] = rng.choice([1, 512, 1024])
        if rng.random() < 0.3 and family_of(algo) == "host":
            e["algorithm"] = rng.choice(HOST)
        if rng.random() < 0.3:
            e["mode"], e["compute_ns"] = "overlap", 500
        entries.append(e)
    k["collectives"] = entries
    return "collectives: %d entries" % len(entries)


VARIATIONS = [
    ("roots_all", lambda k: family_of(k["collective.algorithm"]) in ("host", "ragasa", "tofu2")
     and k["collective.algorithm"] != "none", _roots_all),
    ("bytes", lambda k: family_of(k["collective.algorithm"]) in ("host", "ragasa", "tofu2")
     and k["collective.algorithm"] != "none", _bytes),
    ("repeat", lambda k: family_of(k["collective.algorithm"]) in ("host", "ragasa", "tofu2")
     and k["collective.algorithm"] != "none", _repeat),
    ("root", lambda k: family_of(k["collective.algorithm"]) in ("host", "ragasa"), _root),
    ("placement", lambda k: k["topology.kind"] == "dragonfly"
     and family_of(k["collective.algorithm"]) in ("host", "ragasa"), _placement),
    ("routing", lambda k: k["topology.kind"] == "dragonfly"
     and family_of(k["collective.algorithm"]) == "host", _routing),
    ("ragasa", lambda k: k["collective.algorithm"] == "ragasa", _ragasa),
    ("segments", lambda k: family_of(k["collective.algorithm"]) == "tofu2", _segments),
    ("fault", lambda k: k.get("nic.kind") == "lanai"
     or family_of(k["collective.algorithm"]) == "lanai", _fault),
    ("traffic", lambda k: k["topology.kind"] in ("dragonfly", "galaxyfly")
     and family_of(k["collective.algorithm"]) in ("host", "galaxy")
     and k["collective.algorithm"] != "none", _traffic),
    ("collectives", lambda k: family_of(k["collective.algorithm"]) in ("host", "ragasa", "tofu2")
     and k["collective.algorithm"] != "none", _collectives),
]


def vary(rng, keys, count):
    """Applies up to count valid variations; returns their descriptions."""
    what, used = [], set()
    for _ in range(count):
        fits = [v for v in VARIATIONS if v[0] not in used and v[1](keys)]
        if not fits:
            break
        name, _, change = rng.choice(fits)
        used.add(name)
        what.append(change(rng, keys))
    return what


def _scalar(v):
    if isinstance(v, str) and (v == "" or re.search(r"[:#,\[\]{}]|^\s|\s$", v)):
        return '"%s"' % v
    return str(v)


def render(keys):
    """Dotted keys as nested block YAML; `collectives` as a list of flow mappings."""
    tree = {}
    for key, value in keys.items():
        if key == "collectives":
            continue
        node = tree
        parts = key.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = value
    lines = []

    def emit(node, indent):
        for k, v in node.items():
            if isinstance(v, dict):
                lines.append("%s%s:" % ("  " * indent, k))
                emit(v, indent + 1)
            else:
                lines.append("%s%s: %s" % ("  " * indent, k, _scalar(v)))
    emit(tree, 0)
    if keys.get("collectives"):
        lines.append("collectives:")
        for e in keys["collectives"]:
            lines.append("  - {%s}" % ", ".join("%s: %s" % (k, _scalar(v)) for k, v in e.items()))
    return "\n".join(lines) + "\n"


def tags_of(shape, keys):
    """The coverage classes of a scenario: kind, family, algorithm, NIC kind."""
    algo = keys.get("collective.algorithm", "?")
    return {"kind": kind_of(shape), "family": family_of(algo), "algorithm": algo,
            "nic": keys.get("nic.kind", "lanai" if family_of(algo) == "lanai" else
                            "tofu2" if family_of(algo) == "tofu2" else "host")}
