#!/usr/bin/env python3
"""Markdown tables of the allgather experiment from the `bcastsim sweep` studies' output,
results/NET-algorithms/ and results/NET-ragasa/ (results.csv; perf.csv for --wall): per
network and communicator, completion time in us per algorithm x bytes per rank, the fastest
algorithm, and MPICH's choice (MPIR_Allgather_intra_auto's thresholds, as
algorithms/allgather.h) with, where allgather-mpich ran, a check that it gave the chosen
algorithm's time.

  python3 experiments/allgather/tables.py            # all tables
  python3 experiments/allgather/tables.py --wall     # wall seconds per run instead
"""
import argparse
import csv
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ORDER = ["allgather-ring", "allgather-bruck", "allgather-rd", "allgather-mpich", "binomial",
         "forest", "ragasa"]
SHORT = {"allgather-ring": "ring", "allgather-bruck": "Bruck", "allgather-rd": "rd",
         "allgather-mpich": "MPICH auto", "binomial": "binomial, roots all",
         "forest": "FOREST, roots all", "ragasa": "Ragasa, roots all"}
SHORT_LONG = 81920     # MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE
LONG = 524288          # MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE
NETWORKS = [("df72", "72 terminals, Df(2,4,2)", [("0-63", 64), ("all", 72)]),
            ("df1056", "1,056 terminals, Df(4,8,4)", [("0-1023", 1024), ("all", 1056)])]
STUDIES = ("algorithms", "ragasa")  # results/NET-algorithms/, results/NET-ragasa/


def mpich_choice(p, b):
    total = p * b
    if total < LONG and p & (p - 1) == 0:
        return "allgather-rd"
    if total < SHORT_LONG:
        return "allgather-bruck"
    return "allgather-ring"


def size(b):
    for unit, n in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= n and b % n == 0:
            return f"{b // n} {unit}"
    return f"{b} B"


def read(path):
    return list(csv.DictReader(open(path, newline=""))) if os.path.exists(path) else []


def load(net, ranks):
    """The rows of collective.ranks = RANKS in results/NET-algorithms/results.csv and
    results/NET-ragasa/results.csv, each with its machine figures from the study's perf.csv
    (perf.wall_s, ...) added; None if no study has run."""
    rows = None
    for study in STUDIES:
        d = os.path.join(HERE, "results", f"{net}-{study}")
        res = read(os.path.join(d, "results.csv"))
        if not res:
            continue
        perf = {r["point"]: r for r in read(os.path.join(d, "perf.csv"))}
        rows = rows or []
        for r in res:
            if r["collective.ranks"] == ranks:
                rows.append({**perf.get(r["point"], {}), **r})
    return rows


def table(rows, p, wall):
    cells, failed = {}, []
    for r in rows:
        if r["status"] != "ok":
            failed.append(r)
            continue
        cells[(r["collective.algorithm"], int(r["collective.bytes"]))] = r
    algos = [a for a in ORDER if any(k[0] == a for k in cells)]
    sizes = sorted({k[1] for k in cells})
    head = ["bytes per rank"] + [SHORT[a] for a in algos]
    if not wall:
        head += ["fastest", "MPICH's choice"]
    out = ["| " + " | ".join(head) + " |", "|---:|" + "---:|" * len(algos) +
           ("" if wall else "---|---|")]
    for b in sizes:
        line = [size(b)]
        times = {}
        for a in algos:
            r = cells.get((a, b))
            if r is None:
                line.append("")
                continue
            if wall:
                w = r.get("perf.wall_s", "")
                line.append(f"{float(w):.1f}" if w else "")
            else:
                times[a] = float(r["collective.completion_ns"]) / 1000
                line.append(f"{times[a]:,.2f}")
        if not wall:
            best = min((t, a) for a, t in times.items() if a != "allgather-mpich")
            runner = sorted((t, a) for a, t in times.items() if a != "allgather-mpich")
            gap = ""
            if len(runner) > 1:
                ratio = runner[1][0] / runner[0][0]
                gap = (f" (tied with {SHORT[runner[1][1]]}: {ratio:.4f}x)" if ratio < 1.005
                       else f" ({ratio:.2f}x ahead of {SHORT[runner[1][1]]})")
            line[1 + algos.index(best[1])] = f"**{line[1 + algos.index(best[1])]}**"
            line.append(SHORT[best[1]] + gap)
            choice = mpich_choice(p, b)
            note = SHORT[choice]
            if "allgather-mpich" in times and choice in times:
                same = times["allgather-mpich"] == times[choice]
                note += " (ran: same time)" if same else " (ran: DIFFERENT time)"
            if choice in times and choice != best[1]:
                note += f", {times[choice] / best[0]:.2f}x the fastest"
            line.append(note)
        out.append("| " + " | ".join(line) + " |")
    for r in failed:
        out.append(f"\n{r['status'].capitalize()}: {r['collective.algorithm']} {r['collective.bytes']} B: {r['error']}")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wall", action="store_true")
    args = ap.parse_args()
    for net, title, comms in NETWORKS:
        for ranks, p in comms:
            rows = load(net, ranks)
            if rows is None:
                continue
            what = "wall seconds per run" if args.wall else "completion in µs"
            print(f"\n### {title}, {p} ranks ({'ranks ' + ranks if ranks != 'all' else 'every rank'}): {what}\n")
            print(table(rows, p, args.wall))


if __name__ == "__main__":
    main()
