#!/usr/bin/python3
"""The Galaxyfly experiment's tables (experiments/galaxyfly/README.md) from the sweeps'
results/<study>/results.csv (the study files here), beside the paper's Tables 2-5 (Zhuang et
al. 2023; the paper's time unit is printed as us). Means over the root supernodes (every
supernode collects once). Python standard library."""
import csv
import os
import sys

D = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
SHAPES = [(3, 5, 4), (4, 5, 4), (4, 5, 5), (4, 7, 4), (3, 5, 8)]
DRAGONFLY = {(3, 5, 4): (3, 20), (4, 5, 4): (4, 20), (4, 5, 5): (4, 25), (4, 7, 4): (4, 28),
             (3, 5, 8): (3, 40)}
# The paper's Tables 3-5: AvgTime, MaxTime, MinTime, AvgPacket, RouterTime, AvgChannel (%).
PAPER = {
    "sfata": [(34100, 56500, 8500, 0.0, 27366.7, 5.69), (43700, 73700, 9700, 0.0, 35057.5, 5.72),
              (62400, 92900, 12900, 0.0, 52587, 5.65), (57300, 101300, 117000, 0.0, 46030.4, 5.73),
              (91600, 132900, 24900, 0.0, 82947.5, 4.73)],
    "rfata": [(44920, 67400, 14600, 1.0, 2440, 4.02), (56925, 87000, 17000, 2.333, 2310, 3.97),
              (82000, 112600, 22600, 1.2, 3160, 3.80), (71735.7, 115800, 19000, 0.643, 2096.43, 4.01),
              (137213, 178700, 48300, 1.0, 8006.67, 2.95)],
    "a2a": [(14295, 21900, 1800, 0.0, None, 12.99), (18080, 28200, 1800, 0.0, None, 13.21),
            (24696, 34800, 2200, 0.0, None, 13.52), (28896.4, 39000, 2500, 0.0, None, 13.62),
            (38997.5, 55900, 3800, 0.0, None, 10.53)],
}
METRICS = ["galaxy.avg_time_ns", "galaxy.max_time_ns", "galaxy.min_time_ns",
           "galaxy.avg_redundant_packets", "galaxy.router_time_ns", "galaxy.avg_channel_utilization"]


def rows(study, csv_name="results.csv"):
    """The rows of results/<study>/<csv_name> (results.csv, or perf.csv for the wall times)."""
    path = os.path.join(D, study, csv_name)
    if not os.path.exists(path):
        sys.exit(f"{path} is missing: run the sweep in the header of "
                 f"experiments/galaxyfly/{study}.yaml first")
    with open(path) as f:
        return list(csv.DictReader(f))


def ok(rs):
    return rs and all(r["status"] == "ok" and r["exit_code"] == "0" for r in rs)


def dragonfly(study, g, a):
    return [r for r in rows(study) if r["topology.g"] == str(g) and r["topology.a"] == str(a)]


def mean(rs, key):
    return sum(float(r[key]) for r in rs) / len(rs)


def ours(shape, algorithm, ps="160"):
    if algorithm == "a2a":
        g, a = DRAGONFLY[shape]
        rs = [r for r in dragonfly("df-paper", g, a) if r["collective.bytes"] == ps]
    else:
        rs = [r for r in rows("gf-%d-%d-%d" % shape)
              if r["collective.algorithm"] == algorithm and r["collective.bytes"] == ps]
    assert ok(rs)
    return [mean(rs, m) for m in METRICS], len(rs)


def fmt(v, unit):
    if v is None:
        return "-"
    return {"ns": f"{v / 1000:,.2f}", "n": f"{v:.3f}", "%": f"{100 * v:.2f}"}[unit]


def table(algorithm):
    names = ["AvgTime (us)", "MaxTime (us)", "MinTime (us)", "AvgPacket", "RouterTime (us)",
             "AvgChannel (%)"]
    units = ["ns", "ns", "ns", "n", "ns", "%"]
    head = [f"({n},{q},{a})" if algorithm != "a2a" else "(%d,%d)" % DRAGONFLY[(n, q, a)]
            for n, q, a in SHAPES]
    print(f"\n{algorithm.upper()} (ours | paper)\n")
    print("| metric | " + " | ".join(head) + " |")
    print("|---|" + "---|" * len(head))
    got = [ours(s, algorithm) for s in SHAPES]
    for i, (name, unit) in enumerate(zip(names, units)):
        cells = []
        for k in range(len(SHAPES)):
            p = PAPER[algorithm][k][i]
            paper = "-" if p is None else (f"{p:g}" if unit != "%" else f"{p:.2f}")
            cells.append(f"{fmt(got[k][0][i], unit)} \\| {paper}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("| runs (roots) | " + " | ".join(str(g[1]) for g in got) + " |")


def success():
    print("\nSuccessRate over every shape, algorithm, PS and root (the paper's Table 2: 100 %)\n")
    print("| PS | SFATA runs | SFATA SuccessRate | RFATA runs | RFATA SuccessRate | A2A runs | A2A SuccessRate |")
    print("|---|---|---|---|---|---|---|")
    for ps in ["160", "320", "640", "1280"]:
        cells = []
        for alg in ["sfata", "rfata", "a2a"]:
            rs = []
            if alg == "a2a":
                for g, a in DRAGONFLY.values():
                    rs += [r for r in dragonfly("df-paper", g, a) if r["collective.bytes"] == ps]
            else:
                for n, q, a in SHAPES + [(4, 7, 5)]:
                    rs += [r for r in rows(f"gf-{n}-{q}-{a}")
                           if r["collective.algorithm"] == alg and r["collective.bytes"] == ps]
            good = sum(1 for r in rs if r["status"] == "ok" and r["exit_code"] == "0"
                       and float(r["galaxy.success_rate"]) == 1.0)
            cells += [str(len(rs)), f"{100 * good / len(rs):.0f} %"]
        print(f"| {ps} B | " + " | ".join(cells) + " |")


def per_root(shape, algorithm, ps="160"):
    """{root: row} of one shape and algorithm at one PS."""
    return {r["collective.root"]: r for r in rows("gf-%d-%d-%d" % shape)
            if r["collective.algorithm"] == algorithm and r["collective.bytes"] == ps}


def paper_ratio(i, num, den):
    """The paper's num/den ratio of metric i over the five shapes, as 'lo-hi'."""
    v = [PAPER[num][k][i] / PAPER[den][k][i] for k in range(len(SHAPES))]
    return f"{min(v):.2f}-{max(v):.2f}x"


def verdict(ok_, text):
    return f"{'holds' if ok_ else '**does not**'} ({text})"


def orderings():
    """The paper's stated orderings (its §5.2 text on Tables 3-5), each per shape: holds or
    not on the means over roots, by how much, and on how many roots it holds run by run."""
    print("\nThe paper's stated orderings, PS 160 B: holds / does not on the means over roots, "
          "by how much (ratio), and on how many roots run by run\n")
    print("| ordering | paper | " + " | ".join(f"({n},{q},{a})" for n, q, a in SHAPES) + " |")
    print("|---|---|" + "---|" * len(SHAPES))
    lines = [
        ("(a) SFATA's AvgTime below RFATA's (RFATA/SFATA)", 0, 1.0, paper_ratio(0, "rfata", "sfata")),
        ("(a) SFATA's MaxTime below RFATA's (RFATA/SFATA)", 1, 1.0, paper_ratio(1, "rfata", "sfata")),
        ("(a) SFATA's MinTime below RFATA's (RFATA/SFATA)", 2, 1.0, paper_ratio(2, "rfata", "sfata")),
        ("(b) RFATA's MaxTime over 1.05x SFATA's", 1, 1.05, paper_ratio(1, "rfata", "sfata")),
    ]
    for name, i, bound, paper in lines:
        cells = []
        for s in SHAPES:
            sf, rf = ours(s, "sfata")[0], ours(s, "rfata")[0]
            psf, prf = per_root(s, "sfata"), per_root(s, "rfata")
            k = sum(1 for root in psf if float(prf[root][METRICS[i]]) > bound * float(psf[root][METRICS[i]]))
            cells.append(verdict(rf[i] > bound * sf[i], f"{rf[i] / sf[i]:.3f}x; {k}/{len(psf)} roots"))
        print(f"| {name} | {paper} | " + " | ".join(cells) + " |")
    cells = []
    for s in SHAPES:
        psf = per_root(s, "sfata")
        worst = max(float(r[METRICS[3]]) for r in psf.values())
        cells.append(verdict(worst == 0, f"max {worst:.3f} per router over {len(psf)} roots"))
    print("| (c) SFATA without redundant packets | 0 | " + " | ".join(cells) + " |")
    cells = []
    for s in SHAPES:
        sf, rf = ours(s, "sfata")[0], ours(s, "rfata")[0]
        psf, prf = per_root(s, "sfata"), per_root(s, "rfata")
        k = sum(1 for root in psf if float(psf[root][METRICS[5]]) > float(prf[root][METRICS[5]]))
        cells.append(verdict(sf[5] > rf[5], f"{sf[5] / rf[5]:.3f}x; {k}/{len(psf)} roots"))
    print(f"| (d) SFATA's AvgChannel above RFATA's (SFATA/RFATA) | {paper_ratio(5, 'sfata', 'rfata')} | "
          + " | ".join(cells) + " |")
    cells = []
    for s in SHAPES:
        sf, rf = ours(s, "sfata")[0], ours(s, "rfata")[0]
        psf, prf = per_root(s, "sfata"), per_root(s, "rfata")
        k = sum(1 for root in psf if float(prf[root][METRICS[4]]) < float(psf[root][METRICS[4]]))
        cells.append(verdict(rf[4] < sf[4], f"{rf[4] / sf[4]:.3f}x; {k}/{len(psf)} roots"))
    print(f"| (e) RFATA's RouterTime below SFATA's (RFATA/SFATA) | {paper_ratio(4, 'rfata', 'sfata')} | "
          + " | ".join(cells) + " |")
    # (f): the paper: A2A "always outperforms both ... in terms of AvgTime, MaxTime, MinTime,
    # AvgPacket, and AvgChannel" (times and redundancy lower, channel use higher).
    for name, i, lower in [("AvgTime", 0, True), ("MaxTime", 1, True), ("MinTime", 2, True),
                           ("AvgPacket", 3, True), ("AvgChannel", 5, False)]:
        cells = []
        for s in SHAPES:
            sf, rf, aa = ours(s, "sfata")[0], ours(s, "rfata")[0], ours(s, "a2a")[0]
            if i == 3:
                cells.append(verdict(aa[i] <= min(sf[i], rf[i]), f"{aa[i]:.3f} vs {min(sf[i], rf[i]):.3f}"))
                continue
            best = min(sf[i], rf[i]) if lower else max(sf[i], rf[i])
            good = aa[i] < best if lower else aa[i] > best
            cells.append(verdict(good, f"{aa[i] / best:.3f}x"))
        what = "A2A / the better of SFATA, RFATA"
        print(f"| (f) A2A ahead of both: {name} ({what}) | "
              f"{'-' if i == 3 else paper_ratio(i, 'a2a', 'sfata')} | "
              + " | ".join(cells) + " |")


def sizes():
    print("\nMaxTime (us) by packet size, means over roots\n")
    print("| shape | algorithm | 160 B | 320 B | 640 B | 1280 B |")
    print("|---|---|---|---|---|---|")
    for s in SHAPES:
        for alg in ["sfata", "rfata", "a2a"]:
            cells = [fmt(ours(s, alg, ps)[0][1], "ns") for ps in ["160", "320", "640", "1280"]]
            print(f"| {s} | {alg} | " + " | ".join(cells) + " |")


def wall(study, rs):
    """Mean perf.wall_s (result.json's, the run's own wall time) over rs, from perf.csv."""
    points = {r["point"] for r in rs}
    return mean([p for p in rows(study, "perf.csv") if p["point"] in points], "perf.wall_s")


def larger():
    print("\nLarger shapes, PS 160 B, means over every root supernode (A2A: one run)\n")
    print("| network | routers | algorithm | AvgTime (us) | MaxTime (us) | MinTime (us) | AvgPacket | RouterTime (us) | AvgChannel (%) | wall (s, mean) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (n, q, a), (g, ga) in [((5, 9, 4), (5, 36)), ((7, 7, 8), (7, 56)), ((6, 13, 4), (6, 52))]:
        for alg in ["sfata", "rfata"]:
            study = f"gf-{n}-{q}-{a}"
            rs = [r for r in rows(study) if r["collective.algorithm"] == alg]
            assert ok(rs)
            v = [mean(rs, m) for m in METRICS]
            print(f"| Galaxyfly({n},{q},{a}) | {n * q * a} | {alg} | {fmt(v[0], 'ns')} | {fmt(v[1], 'ns')} | "
                  f"{fmt(v[2], 'ns')} | {fmt(v[3], 'n')} | {fmt(v[4], 'ns')} | {fmt(v[5], '%')} | {wall(study, rs):.2f} |")
        rs = dragonfly("df-larger", g, ga)
        assert ok(rs)
        v = [mean(rs, m) for m in METRICS]
        print(f"| dragonfly g={g} a={ga} | {g * ga} | a2a | {fmt(v[0], 'ns')} | {fmt(v[1], 'ns')} | "
              f"{fmt(v[2], 'ns')} | {fmt(v[3], 'n')} | {fmt(v[4], 'ns')} | {fmt(v[5], '%')} | {wall('df-larger', rs):.2f} |")


def host():
    if not os.path.exists(os.path.join(D, "host-gf", "results.csv")):
        return
    print("\nHost-based collectives, one rank per router (80), completion (us)\n")
    names = [(rows("host-gf"), "Galaxyfly(4,5,4) h=2, radix 6"),
             (dragonfly("host-df", 20, 4), "dragonfly g=20 a=4 h=5, radix 9"),
             (dragonfly("host-df", 4, 20), "dragonfly g=4 a=20 h=1, radix 21")]
    algs = ["allgather-ring", "allgather-bruck", "allgather-mpich", "binomial", "scatter-ring-allgather"]
    print("| network | " + " | ".join(algs) + " | global packets (ring allgather) |")
    print("|---|" + "---|" * (len(algs) + 1))
    for rs, label in names:
        assert ok(rs)
        got = {r["collective.algorithm"]: r for r in rs}
        cells = [fmt(float(got[a]["collective.completion_ns"]), "ns") for a in algs]
        print(f"| {label} | " + " | ".join(cells)
              + f" | {got['allgather-ring']['traversals.global.packets']} |")
    print("\n(allgathers 1 KiB per rank; broadcasts 64 KiB from rank 0)")


if __name__ == "__main__":
    success()
    for alg in ["sfata", "rfata", "a2a"]:
        table(alg)
    orderings()
    sizes()
    if os.path.exists(os.path.join(D, "gf-5-9-4", "results.csv")):
        larger()
    host()
