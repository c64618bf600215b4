#!/usr/bin/env python3
"""The same judge, before and after a change that must not change what it judges: every lab's
tests (`banklab-judge list`: names, order, tiers), each test's points, and every verdict of every
lab's stub and solution, test by test. bench/device_verdicts_before_after.sh runs it on the GPU
machine on all tiers; on a machine without a GPU it compares the CPU tier.

    verdicts_before_after.py snapshot --judge J --root TREE --out DIR [--tier cpu|gpu|all] [--graded]
                                      [--jobs N] [--work DIR] [--lab 05]...
    verdicts_before_after.py compare BEFORE_DIR AFTER_DIR

snapshot writes DIR/list.txt (`J list`), DIR/points.json ({test: points} of each lab, from TREE's
descriptions and grader/points/weights.toml) and DIR/labNN_{stub,solution}.json (`J grade`'s
records; DIR/meta.json: TREE, so that compare reads paths in messages as "TREE"; --jobs N grades N
files at once, their GPU tests serialised by the judge's GPU lock). compare prints every difference: a test listed, tiered or weighted otherwise (ORDER: the same
tests listed in another order, printed, not a failure), a
verdict whose status, check count or message differs (MESSAGE: the words differ once numbers are
left out; NUMBERS: only numbers differ, as timings do from run to run: counted, not a failure).
Exit status 1 when anything but numbers differs. Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import re
import runpy
import subprocess
import sys
from pathlib import Path

runpy.run_path(str(Path(__file__).resolve().parents[1] / "python" / "banklab_run.py"))  # banklab's path, set in one place

from banklab.grading import points as bpt  # noqa: E402
from banklab.lab import labs as banklab_labs  # noqa: E402

#: The files graded: the student's stub and the instructor's solution.
FILES = {"stub": "labs", "solution": "solutions"}
NUMBER = re.compile(r"\d+(\.\d+)?")


def snapshot(a: argparse.Namespace) -> int:
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    listed = subprocess.run([a.judge, "list"], capture_output=True, text=True, timeout=120)
    if listed.returncode != 0:
        print(f"{a.judge} list failed ({listed.returncode}): {listed.stderr}", file=sys.stderr)
        return 2
    (out / "list.txt").write_text(listed.stdout)
    names: dict[str, list[str]] = {}
    for line in listed.stdout.splitlines():
        n, test, _tier = line.split()
        names.setdefault(n, []).append(test)
    root = Path(a.root).resolve()
    labs = banklab_labs.find_labs(root)
    wanted = a.lab or list(labs)
    pts = {}
    for n in labs:
        alloc = bpt.load_points(root, n).allocate(["Lab" + n + ".Build"] + names.get(n, []))
        pts[n] = {t: round(p, 6) for t, p in alloc.items()}
    (out / "points.json").write_text(json.dumps(pts, indent=1, sort_keys=True) + "\n")
    (out / "meta.json").write_text(json.dumps({"root": str(root), "tier": a.tier, "graded": a.graded}) + "\n")

    def grade(n: str, which: str) -> str:
        source = root / FILES[which] / labs[n].folder / "kernel.cu"
        work = Path(a.work) / f"lab{n}_{which}"
        cmd = [a.judge, "grade", "--lab", n, "--source", str(source), "--work", str(work),
               "--json", str(out / f"lab{n}_{which}.json"), "--tier", a.tier] + (["--graded"] if a.graded else [])
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1800)
        (out / f"lab{n}_{which}.log").write_text(p.stdout)
        last = p.stdout.strip().splitlines()[-1:] or ["(no output)"]
        return f"lab {n} {which}: {last[0]}"

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        for line in pool.map(lambda nw: grade(*nw), [(n, w) for n in wanted for w in FILES]):
            print(line, flush=True)
    return 0


def records(path: Path) -> list[dict]:
    try:
        return json.loads(path.read_text())["verdicts"]
    except (OSError, ValueError, KeyError):
        return []


def tree_of(d: Path) -> str:
    try:
        return json.loads((d / "meta.json").read_text())["root"]
    except (OSError, ValueError, KeyError):
        return "\0"


# The model's `banklab` command in a "See it" or "Check yourself" line: the judge names the build's
# tool where it is built and the command that builds it where not ("cmake --build B --target banklab
# && B/tools/banklab"); which one is a fact of the build folder, not of the judge, so both read BANKLAB.
BANKLAB_COMMAND = re.compile(r"(?:cmake --build \S+ --target banklab && )?\S*/tools/banklab\b")


def compare(before: Path, after: Path) -> int:
    bad, numbers = [], 0
    tb, ta = tree_of(before), tree_of(after)
    lb, la = (before / "list.txt").read_text().splitlines(), (after / "list.txt").read_text().splitlines()
    order = []
    if lb != la:
        sb, sa = set(lb), set(la)
        bad += [f"LIST  only before: {x}" for x in lb if x not in sa]
        bad += [f"LIST  only after:  {x}" for x in la if x not in sb]
        if sb == sa:   # the same tests, tiers and labs: which labs list them in another order (not a failure)
            for n in sorted({x.split()[0] for x in lb}):
                ob, oa = [x.split()[1] for x in lb if x.split()[0] == n], [x.split()[1] for x in la if x.split()[0] == n]
                if ob != oa:
                    moved = [t for i, t in enumerate(oa) if i >= len(ob) or ob[i] != t]
                    order.append(f"ORDER lab {n}: the same {len(ob)} tests in another order; from the first moved: "
                                 f"{', '.join(t.split('.', 1)[1] for t in moved[:6])}")
    pb, pa = json.loads((before / "points.json").read_text()), json.loads((after / "points.json").read_text())
    for n in sorted(set(pb) | set(pa)):
        for t in sorted(set(pb.get(n, {})) | set(pa.get(n, {}))):
            if pb.get(n, {}).get(t) != pa.get(n, {}).get(t):
                bad.append(f"POINTS lab {n} {t}: {pb.get(n, {}).get(t)} -> {pa.get(n, {}).get(t)}")
    graded = sorted(p.name for p in before.glob("lab*_*.json"))
    compared = 0
    for name in graded:
        vb, va = records(before / name), records(after / name)
        if not vb or not va:
            bad.append(f"GRADE {name}: no records {'before' if not vb else 'after'}")
            continue
        db, da = {v["test"]: v for v in vb}, {v["test"]: v for v in va}
        for t in [v["test"] for v in vb] + [t for t in da if t not in db]:
            x, y = db.get(t), da.get(t)
            if x is None or y is None:
                bad.append(f"TEST  {name} {t}: only {'after' if x is None else 'before'}")
                continue
            compared += 1
            for key in ("status", "tier", "checks"):
                if x.get(key) != y.get(key):
                    bad.append(f"FLIP  {name} {t}: {key} {x.get(key)} -> {y.get(key)}")
            mx = BANKLAB_COMMAND.sub("BANKLAB", x.get("message", "").replace(tb, "TREE"))
            my = BANKLAB_COMMAND.sub("BANKLAB", y.get("message", "").replace(ta, "TREE"))
            if mx != my:
                if NUMBER.sub("#", mx) == NUMBER.sub("#", my):
                    numbers += 1
                else:
                    bad.append(f"MESSAGE {name} {t}:\n    before: {mx[:400]!r}\n    after:  {my[:400]!r}")
    print("\n".join(order + bad) if order or bad else "no difference")
    print(f"{len(lb)} tests listed before, {len(la)} after; {compared} verdicts of {len(graded)} grades compared; "
          f"{len(bad)} differences; {numbers} messages differ in their numbers only")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("snapshot")
    s.add_argument("--judge", required=True)
    s.add_argument("--root", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--work", default="/tmp/verdicts_before_after")
    s.add_argument("--tier", default="cpu", choices=("cpu", "gpu", "all"))
    s.add_argument("--graded", action="store_true")
    s.add_argument("--jobs", type=int, default=1)
    s.add_argument("--lab", action="append", default=[])
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    a = ap.parse_args()
    return snapshot(a) if a.cmd == "snapshot" else compare(a.before, a.after)


if __name__ == "__main__":
    sys.exit(main())
