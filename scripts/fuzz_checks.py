#!/usr/bin/env python3
"""Checks across the steps of a scripts/fuzz.py case (issue 39), and the edits a case makes
between its steps. A check is a callable (work, rcs) -> [(kind, detail)]: rcs holds each
step's exit code (None: timeout, "skip": not run, "action": a Python step). Standard
library only."""

import json
import os
import re
import stat
import subprocess


def load_json(work, folder, name):
    try:
        with open(os.path.join(work, folder, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def compare_results(first, a, b, what, only=None):
    """result.json of folders a and b equal, less `perf` (or only the `only` sections):
    the same seed gives the same result; a graph file runs as the built-in network."""
    def check(work, rcs):
        if rcs[first] != 0 or not all(r == 0 for r in rcs[first + 1:] if r != "action"):
            return []
        ra, rb = load_json(work, a, "result.json"), load_json(work, b, "result.json")
        if ra is None or rb is None:
            return [("compare", "%s: a result.json is missing" % what)]
        for r in (ra, rb):
            r.pop("perf", None)
            (r.get("config") or {}).pop("trace", None)  # names the output's own path
            if only:
                for k in [k for k in r if k not in only]:
                    del r[k]
            # The graph kind names its file and kind; compared are the figures.
            for k in ("config", "topology", "link_traffic"):
                if only:
                    r.pop(k, None)
        if ra != rb:
            diff = [k for k in sorted(set(ra) | set(rb)) if ra.get(k) != rb.get(k)]
            detail = diff[0] if diff else "?"
            va, vb = ra.get(detail), rb.get(detail)
            if isinstance(va, dict) and isinstance(vb, dict):
                sub = [k for k in sorted(set(va) | set(vb)) if va.get(k) != vb.get(k)][:1]
                if sub:
                    detail += ".%s: %s against %s" % (sub[0], va.get(sub[0]), vb.get(sub[0]))
            return [("differ", "%s: %s" % (what, detail[:200]))]
        return []
    return check


def analyze_agrees(first, run_out, an_out, compare):
    """analyze never exits 0 where run refuses (exit 2); under minimal routing, with the
    same scenario, its traversals per link class equal run's (README, analyze)."""
    def check(work, rcs):
        rc_run, rc_an = rcs[first], rcs[first + 1]
        if rc_run == 2 and rc_an == 0:
            return [("analyze-accepts", "analyze exit 0 where run exits 2")]
        if not compare or rc_run != 0 or rc_an != 0:
            return []
        r = load_json(work, run_out, "result.json")
        a = load_json(work, an_out, "analyze.json")
        if r is None or a is None:
            return [("analyze-vs-run", "a result is missing")]
        rt, at = r.get("traversals") or {}, a.get("traversals") or {}
        for cls in sorted(set(rt) | set(at)):
            for n in ("messages", "packets"):
                x, y = (rt.get(cls) or {}).get(n), (at.get(cls) or {}).get(n)
                if x != y:
                    return [("analyze-vs-run", "traversals.%s.%s: run %s, analyze %s"
                             % (cls, n, x, y))]
        return []
    return check


def csv_equal(first, a, b):
    """results.csv of a resumed study equals a fresh whole run's, byte for byte."""
    def check(work, rcs):
        if rcs[first] != 0 or rcs[first + 1] != 0:
            return []
        try:
            with open(os.path.join(work, a, "results.csv"), "rb") as f:
                x = f.read()
            with open(os.path.join(work, b, "results.csv"), "rb") as f:
                y = f.read()
        except OSError as e:
            return [("resume", "results.csv missing: %s" % e)]
        if x != y:
            xl = x.decode(errors="replace").splitlines()
            yl = y.decode(errors="replace").splitlines()
            row = next((i for i in range(max(len(xl), len(yl)))
                        if i >= len(xl) or i >= len(yl) or xl[i] != yl[i]), 0)
            return [("resume", "resumed results.csv differs from a fresh run's at row %d" % row)]
        return []
    return check


def file_made(step, path):
    """An output flag given and exit 0: the file is there (never silently ignored)."""
    def check(work, rcs):
        if rcs[step] == 0 and not os.path.exists(os.path.join(work, path)):
            return [("flag-ignored", "exit 0 without %s" % os.path.basename(path))]
        return []
    return check


def no_waveform(folder):
    """A waveform write that failed leaves no VCD, whole or part, nor an empty one."""
    def check(work, rcs):
        try:
            names = os.listdir(os.path.join(work, folder))
        except OSError:
            return []
        # A part file, or a VCD at its final name cut short (0 bytes, or no header's end).
        left = [n for n in names if ".part" in n or (
            n.endswith(".vcd") and "$enddefinitions" not in _head(os.path.join(work, folder, n)))]
        if rcs[-1] not in (None, 0) and left:
            return [("full-disk", "failed waveform write left %s" % re.sub(r"\d+", "N",
                                                                        sorted(left)[0]))]
        return []
    return check


def _head(path):
    try:
        with open(path, errors="replace") as f:
            return f.read(65536)
    except OSError:
        return ""


def mount_tmpfs(path, free_bytes=8192):
    """A 64 KiB tmpfs at path, filled to leave free_bytes; False where mount is denied."""
    os.mkdir(path)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", path],
                      capture_output=True).returncode != 0:
        return False
    st = os.statvfs(path)
    with open(os.path.join(path, "filler"), "wb") as f:
        f.write(b"\0" * max(0, st.f_bavail * st.f_frsize - free_bytes))
    return True


def unmount(path):
    if os.path.ismount(path):
        subprocess.run(["umount", "-l", path], capture_output=True)


def make_node(path, kind):
    """A FIFO, a null, zero or full character device, a folder or an empty file at path,
    made in the case's own folder (never the machine's /dev). False where mknod is denied."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind in ("null", "zero", "full"):
        try:
            os.mknod(path, 0o666 | stat.S_IFCHR,
                     os.makedev(1, {"null": 3, "zero": 5, "full": 7}[kind]))
        except PermissionError:
            return False
    elif kind == "dir":
        os.mkdir(path)
    elif kind == "tmpfs":
        return mount_tmpfs(path)
    else:
        open(path, "w").close()
    return True


def node_kept(path, kind):
    """An output path that names a FIFO, device or folder is refused, and stays what it was."""
    test = {"fifo": stat.S_ISFIFO, "null": stat.S_ISCHR, "zero": stat.S_ISCHR,
            "dir": stat.S_ISDIR}[kind]

    def check(work, rcs):
        try:
            mode = os.lstat(os.path.join(work, path)).st_mode
        except OSError:
            return [("output-replaced", "the %s at the output path is gone" % kind)]
        return [] if test(mode) else [("output-replaced", "the %s was replaced" % kind)]
    return check


def _edit(path, fn):
    def action(work):
        full = os.path.join(work, path)
        try:
            with open(full, encoding="latin-1") as f:
                text = f.read()
        except OSError:
            return "no %s to edit" % path
        text, what = fn(text)
        with open(full, "w", encoding="latin-1") as f:
            f.write(text)
        return what
    return action


def _numbers(text):
    return list(re.finditer(r"(?<![A-Za-z_.])\d+(\.\d+)?", text))


def mutate_graph(rng, path):
    """One mutation of a graph file (YAML or edge list) written by `bcastsim graph`."""
    def fn(text):
        lines = text.split("\n")
        op = rng.choice(["number", "number", "drop", "dup", "truncate", "class", "bytes"])
        i = rng.randrange(len(lines))
        if op == "number":
            nums = _numbers(text)
            if nums:
                m = rng.choice(nums)
                v = rng.choice(["0", "-1", "65536", "4294967296", "1e300", "x", "3", "16385"])
                return text[:m.start()] + v + text[m.end():], "graph number -> %s" % v
        if op == "drop":
            del lines[i]
            return "\n".join(lines), "graph line %d dropped" % (i + 1)
        if op == "dup":
            lines.insert(i, lines[i])
            return "\n".join(lines), "graph line %d doubled" % (i + 1)
        if op == "class":
            return re.sub(r"\b(local|global|clos|x)\b", rng.choice(["terminal", "nope", "9a"]),
                          text, count=1), "graph class renamed"
        if op == "bytes":
            pos = rng.randrange(len(text) + 1)
            return text[:pos] + chr(rng.randrange(256)) + text[pos:], "graph random byte"
        n = rng.randrange(len(text) + 1)
        return text[:n], "graph truncated at %d" % n
    return _edit(path, fn)


def edit_graph(rng, path):
    """A valid edit of a graph file: one class slower (the results must change)."""
    def fn(text):
        new = re.sub(r"(latency_ns: *)(\d+)", lambda m: m.group(1) + str(int(m.group(2)) * 7 + 50),
                     text, count=0)
        return new, "graph latencies x7 + 50"
    return _edit(path, fn)


def mutate_recording(rng, path):
    """One mutation of a `--record-unit-inputs` file (JSON lines)."""
    def fn(text):
        lines = [l for l in text.split("\n") if l]
        op = rng.choice(["value", "value", "type", "drop", "truncate", "dup", "garbage"])
        if not lines:
            return "x", "empty recording -> x"
        i = rng.randrange(len(lines))
        if op in ("value", "type"):
            nums = _numbers(lines[i])
            if nums:
                m = rng.choice(nums)
                v = (rng.choice(['"7"', "null", "[]", "true"]) if op == "type" else
                     rng.choice(["0", "-1", "4294967296", "18446744073709551616", "1e300",
                                 "99999999"]))
                lines[i] = lines[i][:m.start()] + v + lines[i][m.end():]
                return "\n".join(lines) + "\n", "recording line %d number -> %s" % (i + 1, v)
        if op == "drop":
            del lines[i]
            return "\n".join(lines) + "\n", "recording line %d dropped" % (i + 1)
        if op == "dup":
            lines.insert(i, lines[i])
            return "\n".join(lines) + "\n", "recording line %d doubled" % (i + 1)
        if op == "garbage":
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)] + "}{"
            return "\n".join(lines) + "\n", "recording line %d garbled" % (i + 1)
        n = rng.randrange(len(text) + 1)
        return text[:n], "recording truncated at %d" % n
    return _edit(path, fn)
