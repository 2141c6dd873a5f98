#!/usr/bin/env python3
"""experiments/galaxyfly/critical_path.py on a hand-made result.json of four routers in two
supernodes: the walk back from the last router follows the transfer that first brought each
critical origin (also when another transfer fired earlier carries it there too, redundantly), the origin the sender waited for last, and an after_all send's last origin of
all; a result.json without the traces is refused. Standard library only.

  python3 tests/scripts/test_galaxy_critical_path.py
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "experiments", "galaxyfly", "critical_path.py")
spec = importlib.util.spec_from_file_location("critical_path", SCRIPT)
cp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cp)


def row(router, supernode, arrivals):
    """arrivals: [origin, time, the router whose transfer brought it first]."""
    return {"router": router, "supernode": supernode, "arrivals": arrivals,
            "complete_ns": max(t for _, t, _ in arrivals)}


# Supernode 0 = {0, 1}, supernode 1 = {2, 3}; times in ns, each transfer fired when its sender
# held its origins (after_all: every origin).
GALAXY = {
    "algorithm": "sfata", "root_supernode": 0,
    "per_router": [row(0, 0, [[0, 0, 0], [1, 10, 1], [2, 14, 2], [3, 16, 2]]),
                   row(1, 0, [[1, 0, 1], [0, 20, 0], [2, 21, 0], [3, 22, 0]]),
                   row(2, 1, [[2, 0, 2], [3, 5, 3], [0, 24, 0], [1, 25, 0]]),
                   row(3, 1, [[3, 0, 3], [2, 27, 2], [0, 28, 2], [1, 30, 2]])],
    "transfer_trace": [
        {"from": 1, "to": 0, "origins": [1], "after_all": False, "fired_ns": 0},
        {"from": 3, "to": 2, "origins": [3], "after_all": False, "fired_ns": 0},
        {"from": 2, "to": 0, "origins": [2, 3], "after_all": False, "fired_ns": 5},
        {"from": 0, "to": 1, "origins": [0, 2, 3], "after_all": True, "fired_ns": 16},
        {"from": 0, "to": 2, "origins": [0, 1], "after_all": True, "fired_ns": 16},
        {"from": 2, "to": 3, "origins": [0, 1, 2], "after_all": False, "fired_ns": 25},
    ],
}


# Origin 2 reaches router 1 twice (a redundant packet, as RFATA sends), by two
# transfers, 0 -> 1 fired at 14 (queued behind a long one, arrives at 40) and 3 -> 1 fired at
# 27, which arrives first, at 30. Supernode 0 = {0, 1, 3} here (fully connected), 1 = {2}.
REDUNDANT = {
    "algorithm": "rfata", "root_supernode": 0,
    "per_router": [row(0, 0, [[0, 0, 0], [1, 5, 1], [3, 6, 3], [2, 14, 2]]),
                   row(1, 0, [[1, 0, 1], [0, 4, 0], [3, 8, 3], [2, 30, 3]]),
                   row(2, 1, [[2, 0, 2], [0, 20, 0], [1, 21, 0], [3, 22, 0]]),
                   row(3, 0, [[3, 0, 3], [0, 3, 0], [1, 9, 1], [2, 26, 2]])],
    "transfer_trace": [
        {"from": 0, "to": 1, "origins": [0], "after_all": False, "fired_ns": 0},
        {"from": 0, "to": 3, "origins": [0], "after_all": False, "fired_ns": 0},
        {"from": 1, "to": 0, "origins": [1], "after_all": False, "fired_ns": 0},
        {"from": 1, "to": 3, "origins": [1], "after_all": False, "fired_ns": 0},
        {"from": 3, "to": 0, "origins": [3], "after_all": False, "fired_ns": 0},
        {"from": 3, "to": 1, "origins": [3], "after_all": False, "fired_ns": 0},
        {"from": 2, "to": 0, "origins": [2], "after_all": False, "fired_ns": 0},
        {"from": 2, "to": 3, "origins": [2], "after_all": False, "fired_ns": 0},
        {"from": 0, "to": 2, "origins": [0, 1, 3], "after_all": True, "fired_ns": 14},
        {"from": 0, "to": 1, "origins": [2], "after_all": False, "fired_ns": 14},
        {"from": 3, "to": 1, "origins": [2], "after_all": False, "fired_ns": 26},
    ],
}


class critical_path_test(unittest.TestCase):
    def test_a_redundant_origin_follows_the_transfer_that_delivered_it(self):
        # Router 1 completes last (30), on origin 2, delivered by 3 -> 1 (fired 26, arrived
        # 30), not by 0 -> 1, fired earlier (14) but arrived later (40, redundant). 3 got 2
        # from 2 itself, at 26.
        self.assertEqual(cp.pick(REDUNDANT, "last"), 1)
        hops = cp.walk(REDUNDANT, 1)
        self.assertEqual([(h["from"], h["to"], h["origin"]) for h in hops], [(3, 1, 2), (2, 3, 2)])
        self.assertEqual([h["fired"] for h in hops], [26, 0])

    def test_walks_back_from_the_last_router(self):
        self.assertEqual(cp.pick(GALAXY, "last"), 3)
        self.assertEqual(cp.pick(GALAXY, "first"), 0)
        hops = cp.walk(GALAXY, 3)
        # 3 got 1 last, by 2 -> 3 (fired when 2 got 1); 2 got 1 by 0's after_all send, so 0
        # waited for its last origin of all, 3 (not 1, the send's own last): by 2 -> 0, which
        # waited for 3, by 3 -> 2 from origin 3 itself.
        self.assertEqual([(h["from"], h["to"], h["origin"]) for h in hops],
                         [(2, 3, 1), (0, 2, 1), (2, 0, 3), (3, 2, 3)])
        self.assertEqual([h["arrive"] - h["fired"] for h in hops], [5, 9, 11, 5])
        self.assertEqual([h["after_all"] for h in hops], [False, True, False, False])

    def test_a_result_without_traces_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "result.json")
            plain = dict(GALAXY, per_router=[{k: v for k, v in r.items() if k != "arrivals"}
                                             for r in GALAXY["per_router"]])
            # Arrivals without their senders (a result.json from before they were recorded).
            old = dict(GALAXY, per_router=[dict(r, arrivals=[a[:2] for a in r["arrivals"]])
                                           for r in GALAXY["per_router"]])
            for g in (plain, old):
                with open(path, "w") as f:
                    json.dump({"galaxy": g}, f)
                done = subprocess.run([sys.executable, SCRIPT, path], capture_output=True,
                                      text=True)
                self.assertNotEqual(done.returncode, 0)
                self.assertIn("galaxy.report_transfers=on", done.stderr)


if __name__ == "__main__":
    unittest.main()
