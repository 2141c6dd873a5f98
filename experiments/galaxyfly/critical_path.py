#!/usr/bin/python3
"""The critical path of a router-level all-to-all broadcast run (SFATA, RFATA, A2A), measured.

Reads a result.json written with `galaxy.report_arrivals: on` and `galaxy.report_transfers: on`
and walks back from a router's completion: the origin it got last, the transfer that brought
it (the one whose packet reached the router first, as the engine recorded it: an arrival
names its sender, and a sender sends a router an origin once, so when several transfers
carry it there -- RFATA's redundant packets -- the one that delivered it is known, not
guessed from fire times), that transfer's sender and the origin the sender
waited for last before firing it (or, for a send out of the root supernode marked after_all,
the last origin of all), and so on back to an origin's own router at time 0. Each hop prints
its ends (router/supernode), its size, when it fired and when the critical origin reached the
receiver; `arrive - fired` is the hop's queueing and serialisation. Python standard library.

  critical_path.py RESULT_JSON [--router last|first|N]   # default: last (MaxTime's router)
"""
import json
import sys


def load(path):
    with open(path) as f:
        g = json.load(f)["galaxy"]
    rows = g["per_router"]
    if "transfer_trace" not in g or "arrivals" not in rows[0] or len(rows[0]["arrivals"][0]) < 3:
        sys.exit(f"{path}: run with --set galaxy.report_arrivals=on --set galaxy.report_transfers=on")
    return g


def walk(g, router):
    """The hops, last first: dicts with from, to, supernodes, count, fired, origin, arrive."""
    rows = g["per_router"]
    held = {r["router"]: {o: t for o, t, _ in r["arrivals"]} for r in rows}
    brought = {(r["router"], o): s for r in rows for o, _, s in r["arrivals"]}
    group = {r["router"]: r["supernode"] for r in rows}
    by = {}  # (from, to, origin) -> the transfer carrying it (a pair sends an origin once)
    for t in g["transfer_trace"]:
        for o in t["origins"]:
            by[(t["from"], t["to"], o)] = t
    r = router
    o = max(held[r], key=lambda x: (held[r][x], x))
    hops = []
    while o != r:
        arrive = held[r][o]
        t = by[(brought[(r, o)], r, o)]
        hops.append({"from": t["from"], "to": r, "from_sn": group[t["from"]], "to_sn": group[r],
                     "count": len(t["origins"]), "fired": t["fired_ns"], "origin": o,
                     "arrive": arrive, "after_all": t["after_all"]})
        s = t["from"]
        pool = held[s] if t["after_all"] else {x: held[s][x] for x in t["origins"]}
        o = max(pool, key=lambda x: (pool[x], x))
        r = s
    return hops


def pick(g, which):
    rows = [r for r in g["per_router"] if r["complete_ns"] is not None]
    if which == "last":
        return max(rows, key=lambda r: (r["complete_ns"], r["router"]))["router"]
    if which == "first":
        return min(rows, key=lambda r: (r["complete_ns"], r["router"]))["router"]
    return int(which)


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--router"):
        sys.exit(__doc__)
    g = load(argv[1])
    router = pick(g, argv[3] if len(argv) == 4 else "last")
    hops = walk(g, router)
    print(f"{g['algorithm']} root supernode {g['root_supernode']}: router {router} complete at "
          f"{hops[0]['arrive'] if hops else 0:.1f} ns, {len(hops)} hops back to origin "
          f"{hops[-1]['origin'] if hops else router}")
    print("| hop | from (supernode) | to (supernode) | kind | packets | fired (ns) | origin | arrives (ns) | arrive - fired |")
    print("|---|---|---|---|---|---|---|---|---|")
    for i, h in enumerate(reversed(hops)):
        kind = "local" if h["from_sn"] == h["to_sn"] else "global"
        mark = " (after all)" if h["after_all"] else ""
        print(f"| {i + 1} | {h['from']} ({h['from_sn']}) | {h['to']} ({h['to_sn']}) | {kind} | "
              f"{h['count']} | {h['fired']:.1f}{mark} | {h['origin']} | {h['arrive']:.1f} | "
              f"{h['arrive'] - h['fired']:.1f} |")


if __name__ == "__main__":
    main(sys.argv)
