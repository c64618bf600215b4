#!/usr/bin/env python3
"""The bank explorer (WebAssembly, run under node) and the native `banklab explain --svg` give the
same answer: for N random access patterns, the same wavefront count and minimum, the same text
(the drawing in characters, the groups, the conflict and the hint) and the same SVG, byte for byte.

  explorer_vs_native.py --banklab EXE --explorer-js banklab_explorer.js --node NODE [--count 200] [--seed S]

Patterns: load or store, every width, full, random and sparse masks, and expressions of `lane`
built from the grammar's operators (+ - * / % & | ^ << >> ~ and parentheses), mostly aligned to
the width, a few not (then both must refuse the access with the same message).
Exit 0 pass, 1 fail, 77 skip.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def rand_expr(rng: random.Random, width: int) -> str:
    def atom() -> str:
        k = rng.choice([1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 32, 33, 48, 64])
        return rng.choice([
            f"lane*{k}", f"(lane/{rng.choice([2, 4, 8, 16])})*{k}", f"(lane^{rng.randrange(32)})",
            f"(lane&{rng.randrange(32)})*{k}", f"(lane%{rng.choice([2, 4, 8, 16])})*{k}",
            f"((lane>>{rng.randrange(4)})<<{rng.randrange(4)})", f"{rng.randrange(64)}",
            f"(lane|{rng.randrange(32)})", f"(~lane&{rng.choice([7, 15, 31])})", f"(lane+{k})*{k}",
            f"(lane*{k}-lane)",
        ])
    expr = atom()
    for _ in range(rng.randrange(3)):
        expr = f"{expr}{rng.choice(['+', '+', '^', '|'])}{atom()}"
    if rng.random() < 0.93:  # usually a multiple of the width (an aligned access)
        expr = f"({expr})*{width}" if width > 1 else expr
    return expr


def patterns(n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        width = rng.choice([1, 2, 4, 4, 8, 8, 16, 16])
        mask = rng.choice(["ffffffff", "ffffffff", f"{rng.getrandbits(32):08x}", "0000ffff", "55555555",
                           "aaaaaaaa", "00000001", "80000001", f"{rng.getrandbits(32) & rng.getrandbits(32):08x}"])
        out.append({"op": rng.choice(["ld", "st", "ld", "st", "ldsm", "stsm", "cpasync", "atom", "atominc", "atomcas", "atomexch", "atomloop"]), "width": str(width), "mask": mask,
                    "expr": rand_expr(rng, width), "title": f"random pattern {i}"})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--banklab", default="")
    ap.add_argument("--explorer-js", default="")
    ap.add_argument("--node", default="")
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=20261122)
    a = ap.parse_args()
    for what, path, why in (("banklab", a.banklab, "the build has no banklab target (tools/)"),
                            ("the WebAssembly explorer", a.explorer_js, "em++ not found (apt-get install emscripten)"),
                            ("node", a.node, "apt-get install nodejs")):
        if not path:
            print(f"SKIP: no {what}: {why}")
            return 77
        if not Path(path).exists():
            print(f"FAIL: {what} should be at {path} but is not: build the docs target first")
            return 1
    pats = patterns(a.count, a.seed)
    problems = 0
    with tempfile.TemporaryDirectory(prefix="banklab-explorer-") as d:
        d = Path(d)
        (d / "in.json").write_text(json.dumps(pats))
        r = subprocess.run([a.node, str(HERE / "explorer_run.js"), a.explorer_js, str(d / "in.json"),
                            str(d / "out.json")], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"FAIL: the explorer under node failed (exit {r.returncode}):\n{r.stdout}{r.stderr}")
            return 1
        wasm = json.loads((d / "out.json").read_text())
        ok_count = 0
        for i, (p, w) in enumerate(zip(pats, wasm)):
            svg = d / f"{i}.svg"
            cmd = [a.banklab, "explain", p["op"], p["width"], p["expr"], "--mask", p["mask"],
                   "--color", "never", "--title", p["title"], "--svg", str(svg)]
            n = subprocess.run(cmd, capture_output=True, text=True)
            show = f"banklab explain {p['op']} {p['width']} '{p['expr']}' --mask {p['mask']}"
            if n.returncode != 0:
                if w.get("ok"):
                    print(f"FAIL: {show}: banklab refuses it ({n.stderr.strip()}) but the explorer drew it")
                    problems += 1
                elif w["error"] not in n.stderr:
                    print(f"FAIL: {show}: different messages:\n  banklab:  {n.stderr.strip()}\n  explorer: {w['error']}")
                    problems += 1
                continue
            if not w.get("ok"):
                print(f"FAIL: {show}: banklab draws it, the explorer refuses it: {w.get('error')}")
                problems += 1
                continue
            m = re.search(r"(\d+) wavefronts? \(minimum (\d+)\)", n.stdout)
            counts = (int(m.group(1)), int(m.group(2))) if m else None
            if counts != (w["wavefronts"], w["minimum"]):
                print(f"FAIL: {show}: banklab counts {counts}, the explorer {w['wavefronts']}, {w['minimum']}")
                problems += 1
            elif n.stdout != w["text"]:
                print(f"FAIL: {show}: the text differs (groups, drawing or hint)")
                problems += 1
            elif svg.read_text(encoding="utf-8") != w["svg"]:
                print(f"FAIL: {show}: the SVG differs")
                problems += 1
            else:
                ok_count += 1
    refused = sum(1 for w in wasm if not w.get("ok"))
    print(f"{len(pats)} random patterns (seed {a.seed}): {ok_count} drawn identically by both "
          f"(same counts, text and SVG), {refused} refused by both with the same message, {problems} differ")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
