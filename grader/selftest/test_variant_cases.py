#!/usr/bin/env python3
"""The selftest's variant runs catch what they are for (issue 35 item 5; variant_case.py):

  test_variant_cases.py --judge BANKLAB_JUDGE --banklab BANKLAB --root ROOT   (CTest: selftest.VariantCasesCatchMistakes)

- rendering: a case's own prediction is kept, every other templated one is the variant's count, and
  a patch that edits a text the variant replaces is refused with the reason (no judge); a cheat made
  from the stub (run_cases.py --variant) is rendered as the variant's stub is, one that replaces the
  whole file is not applicable (no judge);
- a known-bad case that passes as a variant fails the run: lab 00's char_bank_by_element (bank 2,
  element 130 taken as bytes 130 % 32) is right by chance for variant 3 (element 9: word 2, bank 2);
- an alternative that writes the lab's own numbers (kStride3Wavefronts = 32 / 32: right for variant 0)
  passes as variant 0 and fails as variant 4 (float4: 4 wavefronts), the run naming the test.
Each run is run_case.py, exactly as CTest runs labNN.bad.NAME.variantK.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import concurrent.futures
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
import variant_case  # noqa: E402  (this folder is the script's: first on the path; it sets banklab's path)
from banklab.lab import labs as banklab_labs  # noqa: E402

FAILURES: list[str] = []


def check(ok: bool, what: str) -> None:
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILURES.append(what)


def run_case(a, lab: str, folder: str, kind: str, case: Path, variant: int, work: Path) -> tuple[int, str]:
    cmd = [sys.executable, str(HERE / "run_case.py"), "--judge", a.judge, "--root", a.root, "--lab", lab,
           "--folder", folder, "--kind", kind, "--case", str(case), "--work", str(work), "--tier", "cpu",
           "--variant", str(variant), "--banklab", a.banklab]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return r.returncode, r.stdout + r.stderr


def patch_case(folder: Path, kind: str, name: str, header: str, old: str, new: str, root: Path, lab: str) -> Path:
    """A case of lab `lab` (in a scratch solutions/NN_name/cases/KIND/, as materialize.py wants): one
    line of the lab's solution changed."""
    text = (root / "solutions" / lab / "kernel.cu").read_text().split("\n")
    at = text.index(old)
    path = folder / "solutions" / lab / "cases" / kind / f"{name}.patch"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{header}\n--- a/kernel.cu\n+++ b/kernel.cu\n@@ -{at + 1},1 +{at + 1},1 @@\n-{old}\n+{new}\n")
    return path


def rendering(root: Path, tmp: Path) -> None:
    labs = banklab_labs.find_labs(root)
    lab = labs["00"]
    bad = lab.solution_dir / "cases" / "bad" / "char_bank_by_element.patch"
    out = tmp / "render.cu"
    rc = variant_case.main(["--case", str(bad), "--lab-dir", str(lab.solution_dir), "--variant", "4", "--out", str(out)])
    text = out.read_text() if rc == 0 else ""
    check(rc == 0 and "constexpr int kBankOfChar130 = 2;" in text and "constexpr int kBankOfShort70 = 16;" in text
          and "// banklab variant: lab 00 variant 4 " in text,
          "char_bank_by_element as variant 4: its own kBankOfChar130 = 2 kept, kBankOfShort70 the variant's 16")
    line = "// the bank of element 130 of char c[256]."
    stale = patch_case(tmp / "stale", "bad", "edits_a_varied_text", "// EXPECT_FAIL: Lab00Predictions.BankOfCharElement130",
                       line, "// the bank of element 130 of a char array.", root, lab.folder)
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        rc = variant_case.main(["--case", str(stale), "--lab-dir", str(lab.solution_dir), "--variant", "4", "--out",
                                str(tmp / "stale.cu")])
    check(rc == 1 and not (tmp / "stale.cu").exists() and f"has no text {line[3:]!r}" in said.getvalue(),
          f"a patch that edits a text the variant replaces is refused, saying which: {said.getvalue().strip()[-160:]!r}")
    lab05 = labs["05"]
    cheats = lab05.solution_dir / "cases" / "cheats"
    macro = variant_case.materialize.load_case(str(cheats / "macro_rebinds_access_functions_05.cu"))
    stub_dir = str(lab05.stub.parent)
    text, kept = variant_case.render_case(lab05, 1, macro, variant_case.materialize.materialize(macro, stub_dir))
    check("// banklab variant: lab 05 variant 1 " in text and "constexpr int kChunksPerRow = 16;" in text
          and "#define chunk_offset" in text and not kept,
          "a cheat of the stub, as lab 05's variant 1: the variant's line and 16-chunk rows, its payload kept")
    whole = variant_case.materialize.load_case(str(cheats / "includes_the_course_solution_05.cu"))
    try:
        variant_case.render_case(lab05, 1, whole, variant_case.materialize.materialize(whole, stub_dir))
        refused = ""
    except variant_case.DescriptionError as e:
        refused = str(e)
    check("has no text" in refused,
          f"a cheat that replaces the whole file is not applicable to a variant: {refused[-120:]!r}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--judge", required=True)
    ap.add_argument("--banklab", required=True)
    ap.add_argument("--root", required=True)
    a = ap.parse_args()
    os.environ["BANKLAB_CLI"] = a.banklab
    root = Path(a.root)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        rendering(root, tmp)
        bad = root / "solutions" / "00_bank_mapping" / "cases" / "bad" / "char_bank_by_element.patch"
        alt = patch_case(tmp / "alt", "alternatives", "base_numbers_written_out", "// a valid alternative for variant 0",
                         "constexpr int kStride3Wavefronts = 1;  // odd: 3i % 32 hits all 32 banks",
                         "constexpr int kStride3Wavefronts = 32 / 32;  // the lab's numbers, written out",
                         root, "01_32way_conflict")
        runs = [("00", "00_bank_mapping", "bad", bad, 3), ("01", "01_32way_conflict", "alternative", alt, 0),
                ("01", "01_32way_conflict", "alternative", alt, 4)]
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:   # two grades at a time
            (rc, out), (rc0, out0), (rc4, out4) = pool.map(
                lambda r: run_case(a, *r, tmp / f"{r[2]}{r[4]}"), runs)
        check(rc == 1 and "Lab00Predictions.BankOfCharElement130: passed but must fail" in out,
              f"char_bank_by_element as variant 3 (its wrong bank is variant 3's answer) fails the run (exit {rc})")
        check(rc0 == 0, f"the lab's numbers written out pass as variant 0 (exit {rc0})")
        check(rc4 == 1 and "Lab01Predictions.OddStride3" in out4,
              f"... and fail the run as variant 4, naming Lab01Predictions.OddStride3 (exit {rc4})")
        if FAILURES:
            print(out0[-3000:] + out4[-3000:] + out[-3000:])
    print("FAILED: " + "; ".join(FAILURES) if FAILURES else "the variant runs catch every mistake tried")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
