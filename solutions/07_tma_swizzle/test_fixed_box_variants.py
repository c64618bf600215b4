#!/usr/bin/env python3
"""Lab 07's variants whose tensor maps fix the box (labs/07_tma_swizzle/judge/lab.toml [variants]
`box` != 0; docs/dev/VARIANTS.md): the checks only those variants reach, each failed by a known-bad
file and passed by a valid alternative (the selftest's cases run as variants 0 and 4, whose box
follows the mode, so they never reach these).

  solutions/07_tma_swizzle/test_fixed_box_variants.py --judge BANKLAB_JUDGE_LAB07 --banklab BANKLAB --root ROOT
      (CTest: judge.Lab07FixedBoxVariants; instructor side: it holds solution lines)

Each file is a variant's solved file (banklab.lab.variants.solution) with one change, graded on the
CPU tier as that variant:
  - variant 1 (boxes of 64-byte rows) in the 128-byte mode: a box narrower than the mode's span takes
    the span's bytes a row: Lab07Layout.TheSwizzleModeIsOneTmaHas fails, saying so;
  - variant 1 in the 32-byte mode: TMA refuses a box row wider than the span: the same test fails, saying so;
  - variant 3 (rows of 64 bytes in boxes of 32) read as one box a row (the kernel's tile_offset without
    the boxes): Lab07Layout.TileOffsetIsWhereTmaPutsEveryChunk fails;
  - variant 3's solved file with tile_offset written from the model's banklab::tma_box_offset in the
    32-byte mode, box by box: a valid alternative, every CPU test passes.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from banklab.lab import labs as banklab_labs
from banklab.lab import variants as V

MODE = "constexpr int kSwizzleBytes = kTmaBoxBytes != 0 ? kTmaBoxBytes : 128;"
BODY = """  const int unswizzled = unswizzled_offset(row, chunk);
  return unswizzled ^ (((unswizzled >> 7) & (kSwizzleBytes / 16 - 1)) << 4);
"""
ONE_BOX_A_ROW = """  const int unswizzled = row * kChunksPerRow * kChunkBytes + chunk * kChunkBytes;  // DEFECT: no boxes
  return unswizzled ^ (((unswizzled >> 7) & (kSwizzleBytes / 16 - 1)) << 4);
"""
MODEL = """  const int per_box = kBoxBytes / kChunkBytes;
  return chunk / per_box * kTileRows * kBoxBytes +
         static_cast<int>(banklab::tma_box_offset(banklab::TmaSwizzle::Bytes32, kBoxBytes,
                                                  static_cast<std::uint32_t>(row),
                                                  static_cast<std::uint32_t>(chunk % per_box * kChunkBytes)));
"""
MODE_TEST, OFFSET_TEST = "Lab07Layout.TheSwizzleModeIsOneTmaHas", "Lab07Layout.TileOffsetIsWhereTmaPutsEveryChunk"
# (name, variant, [(solution text, replacement)], the test that must fail or None: every test passes,
# a phrase its message must hold)
CASES = [
    ("mode_wider_than_the_box", 1, [(MODE, "constexpr int kSwizzleBytes = 128;")], MODE_TEST, "still takes the span"),
    ("mode_narrower_than_the_box", 1, [(MODE, "constexpr int kSwizzleBytes = 32;")], MODE_TEST, "TMA refuses"),
    ("one_box_a_row", 3, [(BODY, ONE_BOX_A_ROW)], OFFSET_TEST, "boxes side by side"),
    ("model_box_by_box", 3, [(BODY, MODEL)], None, ""),
]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--judge", required=True)
    ap.add_argument("--banklab", required=True)
    ap.add_argument("--root", required=True)
    a = ap.parse_args()
    os.environ["BANKLAB_CLI"] = a.banklab
    lab = banklab_labs.find_labs(Path(a.root))["07"]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, k, reps, must_fail, phrase in CASES:
            text = V.solution(lab, k)
            for old, new in reps:
                if text.count(old) != 1:
                    raise SystemExit(f"FAIL: variant {k}'s solved file has no single {old!r}: this test is stale")
                text = text.replace(old, new)
            src, out = Path(tmp) / f"{name}.cu", Path(tmp) / f"{name}.json"
            src.write_text(text)
            subprocess.run([a.judge, "grade", "--lab", "07", "--source", str(src), "--work", str(Path(tmp) / name),
                            "--json", str(out), "--tier", "cpu", "--variant", str(k)],
                           capture_output=True, text=True, timeout=600)
            if not out.is_file():
                failures.append(f"{name}: no grade written")
                continue
            data = json.loads(out.read_text())
            verdicts = {v["test"]: v for v in data.get("verdicts", data.get("tests", [])) if isinstance(v, dict)}
            if must_fail is None:
                bad = [f"{t}: {v['status']}" for t, v in verdicts.items() if v["status"] != "passed"]
                ok = bool(verdicts) and not bad
                what = f"{name} (variant {k}): a valid alternative, every CPU test passes {bad}"
            else:
                v = verdicts.get(must_fail, {})
                ok = v.get("status") == "failed" and phrase in v.get("message", "") and \
                    f"variant {k}" in v.get("message", "")
                what = f"{name} (variant {k}): {must_fail} fails, its message saying {phrase!r} and naming the variant"
            print(("ok   " if ok else "FAIL ") + what)
            if not ok:
                failures.append(what)
    print("FAILED: " + "; ".join(failures) if failures else "all fixed-box checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
