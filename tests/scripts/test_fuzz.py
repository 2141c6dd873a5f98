#!/usr/bin/env python3
"""scripts/fuzz.py's checks catch what they claim to (issues 13 and 39): a fuzzer whose checks
pass everything would look green while finding nothing, and one whose cases miss a family
would look green while testing nothing of it. Standard library only."""

import json
import os
import signal
import sys
import tempfile
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
import fuzz  # noqa: E402
import fuzz_checks  # noqa: E402
import fuzz_report  # noqa: E402
import fuzz_scenarios  # noqa: E402


def result(injected, delivered, units=None, ranks=72, complete=72):
    d = {"packets": {"injected": injected, "delivered": delivered},
         "collective": {"algorithm": "binomial", "ranks": ranks, "ranks_complete": complete}}
    if units:
        d["ragasa"] = {"units": {"packets_in": units[0], "packets_out": units[1]}}
    return d


def case(big=False, timeout_s=8):
    c = fuzz.Case(0)
    c.argv = ["run", "in/case.yaml", "--out", "out", "-q"]
    c.big = big
    c.timeout_s = timeout_s
    return c


def kinds(found):
    return [kind for kind, _ in found]


class ParseKeys(unittest.TestCase):
    # `bcastsim list` rows as printed: an allowed column may run into the description's.
    LIST = """Topologies (topology.kind), each with its own keys:
  dragonfly: Kim et al.
    key                                default   allowed                         description
    topology.g                         0         0 .. 1000000                    dragonfly groups
    routing.kind                       minimal   minimal|nonminimal|valiant|adaptive  routing policy: a|b
  torus: Tofu
    key                                default             allowed              description
    topology.mesh                      ""                                       torus lines: a|b
    routing.kind                       dimension-order     dimension-order      routing policy
Algorithms (collective.algorithm):
  binomial, tree          MPICH binomial
  glf                     global-links-first
Block statistics: each block's own value
  key                                default         allowed                         description
  seed                               1               0 .. 18000000000000000000       master seed
  collective.algorithm               binomial                                        algorithm
"""

    def test_columns_ranges_choices_and_algorithms(self):
        keys = fuzz.parse_keys(self.LIST)
        self.assertEqual(keys["topology.g"], ("0", "1000000"))
        self.assertEqual(keys["routing.kind"],
                         ["minimal", "nonminimal", "valiant", "adaptive", "dimension-order"])
        self.assertIsNone(keys["topology.mesh"])
        self.assertEqual(keys["seed"], ("0", "18000000000000000000"))
        self.assertEqual(keys["collective.algorithm"], ["binomial", "glf"])


class CheckResult(unittest.TestCase):
    def test_balanced_runs_pass(self):
        self.assertEqual(fuzz.check_result(result(2272, 2272)), [])
        # Ragasa on df72: the root's 32 packets and 36 Mini Packets enter; the units take in
        # 1188 and send 3392 copies; 2272 reach the 71 receivers.
        self.assertEqual(fuzz.check_result(result(68, 2272, units=(1188, 3392))), [])

    def test_lost_packet_is_found(self):
        self.assertIn("conservation", fuzz.check_result(result(2272, 2271))[0])
        self.assertIn("conservation", fuzz.check_result(result(68, 2272, (1187, 3392)))[0])

    def test_incomplete_rank_and_missing_fields_are_found(self):
        self.assertIn("ranks complete", fuzz.check_result(result(10, 10, complete=71))[0])
        self.assertIn("no packets", fuzz.check_result({"collective": {}})[0])

    def test_traffic_balance(self):
        d = result(10, 10)
        d["traffic"] = {"messages_offered": 5, "messages_sent": 4, "dropped_at_source": 0,
                        "messages_delivered": 3}
        self.assertEqual(len(fuzz.check_result(d)), 2)


class CheckOutputs(unittest.TestCase):
    def test_half_written_and_temporary_files_are_found(self):
        with tempfile.TemporaryDirectory() as out:
            with open(os.path.join(out, "result.json"), "w") as f:
                f.write('{"packets": {"injected": 1')
            open(os.path.join(out, "result.json.tmp"), "w").close()
            problems = fuzz.check_outputs(out, True, "run")
            self.assertTrue(any("half-written result.json" in p for p in problems))
            self.assertTrue(any("temporary" in p for p in problems))

    def test_sweep_point_killed_by_a_signal_is_found(self):
        with tempfile.TemporaryDirectory() as out:
            point = os.path.join(out, "points", "0000")
            os.makedirs(point)
            with open(os.path.join(point, "status.json"), "w") as f:
                json.dump({"status": "failed", "exit_code": 136, "error": "signal 8"}, f)
            self.assertIn("point exit 136", fuzz.check_outputs(out, False, "sweep")[0])

    def test_good_run_passes(self):
        with tempfile.TemporaryDirectory() as out:
            with open(os.path.join(out, "result.json"), "w") as f:
                json.dump(result(4, 4), f)
            self.assertEqual(fuzz.check_outputs(out, True, "run"), [])


class CheckCase(unittest.TestCase):
    def check(self, rc, err="", out="", c=None):
        with tempfile.TemporaryDirectory() as work:
            return kinds(fuzz.check_case(c or case(), rc, out, err, work))

    def test_exit_codes(self):
        self.assertEqual(self.check(-8), ["signal"])
        self.assertEqual(self.check(134, "x: y"), ["exit-code"])
        self.assertEqual(self.check(0), [])

    def test_exit_2_must_name_the_input(self):
        self.assertEqual(self.check(2, ""), ["exit-2-unnamed"])
        self.assertEqual(self.check(2, "bcastsim: error: something went wrong"),
                         ["exit-2-unnamed"])
        self.assertEqual(self.check(2, "bcastsim: error: collective.bytes = 'x' is not valid; "
                                       "allowed: an integer in [0, 2^36]"), [])

    def test_exit_1_must_say_more_than_systemc(self):
        w571 = ("\nWarning: (W571) no activity or clock movement for sc_start() invocation\n"
                "In file: kernel/sc_simcontext.cpp:1742\n")
        self.assertEqual(self.check(1, "", w571), ["exit-1-systemc-only"])
        self.assertEqual(self.check(1, "bcastsim: stalled: router_3 port 2 VC 0 waits"), [])

    def test_uncaught_exceptions_are_found(self):
        self.assertEqual(self.check(1, "", "Error: (E549) uncaught exception: yaml-cpp: bad"),
                         ["crash-text"])
        self.assertIn("crash-text", self.check(-6, "terminate called after throwing"))

    def test_timeout_counts_only_for_small_input(self):
        self.assertEqual(self.check(None), ["timeout"])
        self.assertEqual(self.check(None, c=case(big=True)), [])

    def test_known_defects_are_classified(self):
        saved = fuzz.KNOWN
        fuzz.KNOWN = [("a filed defect", "crash-text", r"uncaught exception: yaml-cpp")]
        try:
            self.assertTrue(fuzz.classify("crash-text", "uncaught exception",
                                          "Error: (E549) uncaught exception: yaml-cpp: x", []))
            self.assertIsNone(fuzz.classify("signal", "killed by signal 11 (SIGSEGV)", "", []))
        finally:
            fuzz.KNOWN = saved

    def test_a_matching_failure_is_a_finding_though_exit_1_is_allowed(self):
        err = "bcastsim: receive from rank 15 tag 0 expected bytes [2280,+228) but got [2052,+228)"
        self.assertIn("exit-1-mismatch", self.check(1, err=err))
        self.assertEqual(self.check(1, err="bcastsim: stalled: router_3 holds 2 packets"), [])


class Cases(unittest.TestCase):
    def test_shrink_keeps_cases_small(self):
        text = fuzz.shrink("topology: {kind: dragonfly, a: 16, p: 8, h: 8}\n"
                           "cross:\n  collective.bytes: [1024, 2048, 4096]\n"
                           "  x: {from: 512, to: 65536, times: 2}\nreplicates: 3\n")
        self.assertIn("a: 4, p: 2, h: 2", text)
        self.assertIn("[1024]", text)
        self.assertIn("from: 512, to: 512", text)
        self.assertIn("replicates: 1", text)

    def test_a_case_is_the_same_for_the_same_seed_and_number(self):
        keys = {"collective.bytes": ("0", "6.87195e+10"), "routing.kind": ["minimal", "adaptive"]}
        texts = fuzz.load_texts()
        a = fuzz.make_case("5", 17, keys, texts)
        b = fuzz.make_case("5", 17, keys, texts)
        self.assertEqual((a.argv, a.files, a.what), (b.argv, b.files, b.what))

    def test_big_values(self):
        self.assertTrue(fuzz.is_big("4294967297"))
        self.assertTrue(fuzz.is_big("64", "topology.a"))
        self.assertFalse(fuzz.is_big("64", "collective.bytes"))
        self.assertFalse(fuzz.is_big("minimal"))
        self.assertTrue(fuzz.is_big("1", "traffic.message_bytes"))  # 4.8 M messages: 12 s
        self.assertFalse(fuzz.is_big("1024", "traffic.message_bytes"))


class Steps(unittest.TestCase):
    def test_the_signal_a_case_sends_is_no_finding_but_its_leftovers_are(self):
        c = case()
        c.kill = (0.1, signal.SIGTERM)
        with tempfile.TemporaryDirectory() as work:
            os.makedirs(os.path.join(work, "out"))
            self.assertEqual(kinds(fuzz.check_case(c, -signal.SIGTERM, "", "", work)), [])
            open(os.path.join(work, "out", "w.part123.vcd"), "w").close()
            self.assertEqual(kinds(fuzz.check_case(c, -signal.SIGTERM, "", "", work)),
                             ["output"])
            c.kill = (0.1, signal.SIGKILL)  # SIGKILL cannot clean up: a temporary may stay
            self.assertEqual(kinds(fuzz.check_case(c, -signal.SIGKILL, "", "", work)), [])

    def test_an_expected_exit_code_and_library_text(self):
        c = case()
        c.expect = 2
        self.assertIn("exit-2-expected", CheckCase.check(self, 0, c=c))
        self.assertIn("exit-2-library-text", CheckCase.check(
            self, 2, "bcastsim: error: rec.jsonl line 3: [json.exception.type_error.302] "
                     "type must be string, but is number"))


def write(work, folder, name, data):
    os.makedirs(os.path.join(work, folder), exist_ok=True)
    with open(os.path.join(work, folder, name), "w") as f:
        f.write(data if isinstance(data, str) else json.dumps(data))


class CrossChecks(unittest.TestCase):
    def test_analyze_against_run(self):
        with tempfile.TemporaryDirectory() as work:
            t = {"terminal": {"messages": 4, "packets": 8}, "local": {"messages": 2,
                                                                      "packets": 4}}
            write(work, "out", "result.json", {"traversals": t})
            write(work, "an", "analyze.json", {"traversals": t})
            check = fuzz_checks.analyze_agrees(0, "out", "an", True)
            self.assertEqual(check(work, [0, 0]), [])
            t["local"]["packets"] = 3
            write(work, "an", "analyze.json", {"traversals": t})
            self.assertEqual(check(work, [0, 0])[0][0], "analyze-vs-run")
            self.assertEqual(fuzz_checks.analyze_agrees(0, "out", "an", False)(work, [0, 0]),
                             [])
            self.assertEqual(check(work, [2, 0])[0][0], "analyze-accepts")
            self.assertEqual(check(work, [2, 2]), [])

    def test_same_seed_same_result_less_perf(self):
        with tempfile.TemporaryDirectory() as work:
            write(work, "out", "result.json", {"sim_time_ns": 5, "perf": {"wall_s": 1}})
            write(work, "again", "result.json", {"sim_time_ns": 5, "perf": {"wall_s": 2}})
            check = fuzz_checks.compare_results(0, "out", "again", "rerun")
            self.assertEqual(check(work, [0, 0]), [])
            write(work, "again", "result.json", {"sim_time_ns": 6, "perf": {"wall_s": 2}})
            self.assertEqual(check(work, [0, 0])[0][0], "differ")
            self.assertEqual(check(work, [0, 1]), [])

    def test_resumed_study_against_a_fresh_one(self):
        with tempfile.TemporaryDirectory() as work:
            write(work, "out", "results.csv", "a,b\n1,2\n")
            write(work, "fresh", "results.csv", "a,b\n1,2\n")
            check = fuzz_checks.csv_equal(0, "out", "fresh")
            self.assertEqual(check(work, [0, 0]), [])
            write(work, "fresh", "results.csv", "a,b\n1,3\n")
            self.assertEqual(check(work, [0, 0])[0][0], "resume")

    def test_an_output_path_naming_a_fifo_must_stay_one(self):
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "dst")
            fuzz_checks.make_node(path, "fifo")
            check = fuzz_checks.node_kept("dst", "fifo")
            self.assertEqual(check(work, [2]), [])
            os.remove(path)
            open(path, "w").close()  # what a write-then-rename does to it
            self.assertEqual(check(work, [0])[0][0], "output-replaced")


class Coverage(unittest.TestCase):
    def results(self, rcs):
        out = []
        for i, (algo, rc) in enumerate(rcs):
            c = fuzz.Case(i)
            c.tags = {"kind": "torus", "family": fuzz_scenarios.family_of(algo),
                      "algorithm": algo, "command": "run"}
            out.append((c, rc, "", []))
        return out

    def test_a_class_that_never_completes_fails_the_run(self):
        args = types.SimpleNamespace(seed=1, allow_known=False, findings=None, case=None,
                                     min_complete=0.4)
        ok = self.results([("binomial", 0), ("ragasa", 0), ("ragasa", 2)])
        self.assertEqual(fuzz_report.report(args, ok, 1), 0)
        bad = self.results([("binomial", 0), ("binomial", 0), ("ragasa", 2)])
        self.assertEqual(fuzz_report.report(args, bad, 1), 2)  # algorithm and family
        args.min_complete = 0.9
        self.assertEqual(fuzz_report.report(args, ok, 1), 1)  # 2 of 3 run cases complete

    def test_a_bounded_run_draws_every_kind_family_algorithm_and_command(self):
        keys = {"collective.bytes": ("0", "6.87195e+10"), "routing.kind": ["minimal"]}
        keys.update(("fuzz.key_%d" % i, ("0", "9")) for i in range(8))
        texts = fuzz.load_texts()
        tags = {}
        for n in range(200):
            c = fuzz.make_case("1", n, keys, texts)
            for d, v in c.tags.items():
                tags.setdefault(d, set()).add(v)
        self.assertTrue({"dragonfly", "torus", "myrinet", "galaxyfly", "graph"} <= tags["kind"])
        self.assertTrue({"host", "ragasa", "tofu2", "galaxy", "lanai"} <= tags["family"])
        self.assertTrue({"host", "lanai", "tofu2"} <= tags["nic"])
        algos = set(a for _, a, _ in fuzz_scenarios.COMBOS)
        self.assertTrue(algos <= tags["algorithm"], algos - tags["algorithm"])
        self.assertTrue({"run", "analyze", "analyze-vs-run", "graph", "cosim", "sweep"}
                        <= tags["command"], tags["command"])


if __name__ == "__main__":
    unittest.main()
