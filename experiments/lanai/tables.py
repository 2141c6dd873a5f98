#!/usr/bin/env python3
"""The tables of experiments/lanai/README.md, from the two studies' CSVs.

    /usr/bin/python3 experiments/lanai/tables.py [RESULTS_DIR]

RESULTS_DIR defaults to experiments/lanai/results (latency/, scaling/ and loss/results.csv).
"""
import csv
import os
import sys

ALGS = ["nic-cb", "nic-rd", "allgather-ring", "allgather-rd"]
NAMES = {"nic-cb": "NIC-CB", "nic-rd": "NIC-RD", "allgather-ring": "host ring",
         "allgather-rd": "host RD"}


def load(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["status"] == "ok"]
    if not rows:
        sys.exit("tables.py: no finished points in " + path)
    return rows


def size(b):
    return "%d KiB" % (b // 1024) if b >= 1024 else "%d B" % b


def latency_tables(rows):
    t = {}
    for r in rows:
        t.setdefault(int(r["collective.bytes"]), {})[r["collective.algorithm"]] = r
    print("Latency (us), bandwidth (MB/s: bytes per process / latency) and improvement, 16 nodes\n")
    print("| bytes | " + " | ".join(NAMES[a] + " us" for a in ALGS) +
          " | NIC-CB MB/s | host ring MB/s | best NIC / best host |")
    print("|---" * (len(ALGS) + 4) + "|")
    for b in sorted(t):
        us = {a: float(t[b][a]["collective.completion_ns"]) / 1e3 for a in ALGS}
        best_nic = min(us["nic-cb"], us["nic-rd"])
        best_host = min(us["allgather-ring"], us["allgather-rd"])
        print("| %s | %s | %.2f | %.2f | %.2fx (%s) |" % (
            size(b), " | ".join("%.1f" % us[a] for a in ALGS), b / us["nic-cb"],
            b / us["allgather-ring"], best_host / best_nic,
            "NIC-RD" if us["nic-rd"] < us["nic-cb"] else "NIC-CB"))
    print()
    print("Improvement factor of each NIC-based algorithm over each host-based one (the paper's "
          "Figure 6 uses the host-based baseline of its microbenchmark)\n")
    print("| bytes | NIC-CB / ring | NIC-CB / RD | NIC-RD / ring | NIC-RD / RD |")
    print("|---|---|---|---|---|")
    for b in sorted(t):
        us = {a: float(t[b][a]["collective.completion_ns"]) for a in ALGS}
        print("| %s | %.2f | %.2f | %.2f | %.2f |" % (
            size(b), us["allgather-ring"] / us["nic-cb"], us["allgather-rd"] / us["nic-cb"],
            us["allgather-ring"] / us["nic-rd"], us["allgather-rd"] / us["nic-rd"]))
    print()


def scaling_tables(rows):
    for b in (4, 4096):
        t = {}
        for r in rows:
            if int(r["collective.bytes"]) == b:
                t.setdefault(int(r["topology.nodes"]), {})[r["collective.algorithm"]] = r
        print("Latency (us) and host CPU time per rank (us) vs nodes, %s per process "
              "(one crossbar up to 16, a Clos beyond)\n" % size(b))
        print("| nodes | " + " | ".join(NAMES[a] + " us" for a in ALGS) + " | " +
              " | ".join(NAMES[a] + " CPU us" for a in ALGS) + " |")
        print("|---" * (2 * len(ALGS) + 1) + "|")
        for n in sorted(t):
            print("| %d | %s | %s |" % (
                n, " | ".join("%.1f" % (float(t[n][a]["collective.completion_ns"]) / 1e3)
                              for a in ALGS),
                " | ".join("%.2f" % (float(t[n][a]["host.cpu_busy_ns"]) / 1e3) for a in ALGS)))
        print()


def loss_table(rows):
    agg = {}
    for r in rows:
        agg.setdefault((r["collective.algorithm"], float(r["fault.drop_rate"])), []).append(r)

    def mean(v, col):
        return sum(float(x[col] or 0) for x in v) / len(v)

    print("Packet loss, 16 nodes, 4 KiB per process: means over %d loss patterns\n" %
          len(next(iter(agg.values()))))
    print("| algorithm | loss | latency us | packets lost | resent | NACKs | timeouts |")
    print("|---|---|---|---|---|---|---|")
    for a in ALGS:
        for rate in sorted({k[1] for k in agg}):
            v = agg[(a, rate)]
            print("| %s | %g %% | %.1f | %.1f | %.1f | %.1f | %.1f |" % (
                NAMES[a], 100 * rate, mean(v, "collective.completion_ns") / 1e3,
                mean(v, "packets.dropped"), mean(v, "lanai.retransmissions"),
                mean(v, "lanai.nacks"), mean(v, "lanai.timeouts")))
    print()


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "results")
    latency_tables(load(os.path.join(d, "latency", "results.csv")))
    scaling_tables(load(os.path.join(d, "scaling", "results.csv")))
    loss_table(load(os.path.join(d, "loss", "results.csv")))


if __name__ == "__main__":
    main()
