#!/usr/bin/env python3
"""Two folders of the judge's grades of the same files, one graded on a GPU and one on the emulator
(the same file names), compared test by test over the GPU tier: the same status, and for a traced
test the same message (its lines, banks, words and wavefronts); a timing test the emulator skipped
("needs a GPU: ...") is counted apart. One line a test, then one summary line.

  python3 emu/bench/emu_grades_compare.py GPU_DIR EMU_DIR      (exit 0 all the same, 1 not)
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

TIMING_SKIP = "needs a GPU: this test times kernels"


def gpu_verdicts(path: Path) -> dict:
    """The grade's GPU-tier records by test, the paths of its own folders in a message written
    <out>/work/... and <out>/files/... (the two grades of one file were made in two folders,
    GPU_DIR/../{work,files} and EMU_DIR/../{work,files}, wherever the grades were made)."""
    own = re.compile(r"/?[^\s'\"(]*/" + re.escape(path.parent.parent.name) + r"/(work|files)/")
    out = {}
    for v in json.loads(path.read_text())["verdicts"]:
        if v.get("tier") == "gpu":
            out[v["test"]] = {**v, "message": own.sub(r"<out>/\1/", v.get("message", ""))}
    return out


def main(argv: list[str]) -> int:
    gpu_dir, emu_dir = Path(argv[0]), Path(argv[1])
    counts = {"same": 0, "timing": 0, "different": 0, "no grade": 0}
    for g_path in sorted(gpu_dir.glob("*.json")):
        name = g_path.stem
        try:
            g, e = gpu_verdicts(g_path), gpu_verdicts(emu_dir / g_path.name)
        except (OSError, ValueError, KeyError) as x:
            print(name, "no grade:", x)
            counts["no grade"] += 1
            continue
        for t in sorted(set(g) | set(e)):
            a, b = g.get(t, {}), e.get(t, {})
            if b.get("message", "").startswith(TIMING_SKIP):
                print(name, t, "timing: gpu", a.get("status"), "| emulator skipped")
                counts["timing"] += 1
                continue
            same = a.get("status") == b.get("status") and ("Traced" not in t or a.get("message") == b.get("message"))
            first = next((x for x, y in zip(a.get("message", "").splitlines(), b.get("message", "").splitlines())
                          if x != y), "")
            print(name, t, "same" if same else f"DIFFERENT: gpu {a.get('status')} emu {b.get('status')}: {first[:300]}")
            counts["same" if same else "different"] += 1
    print("summary: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    return 0 if counts["different"] == counts["no grade"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
