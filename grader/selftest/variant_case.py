#!/usr/bin/env python3
"""A selftest case judged as a per-student variant (issue 35 item 5; docs/dev/VARIANTS.md).

A lab's known-bad cases and alternatives are patches of its solution (variant 0). Each CPU-tier one
is judged again as one variant k >= 1 of the lab (the last): the case's patch is applied to the lab's
solution exactly as for variant 0 (materialize.py), then that file is rendered as variant k the way
the variant's own solved file is (banklab.lab.variants.solution: the kernel's replacements, the
`// banklab variant:` line, each templated prediction set to the model's count for k), except the
predictions the patch itself changed, which stay as the case wrote them (a known-bad's wrong
prediction stays wrong). It is graded with `--variant k --tier cpu` and must do what the case says for
variant 0: a known-bad fails its EXPECT_FAIL test, an alternative passes every test (expect.py).
CTest runs the CPU tier; the GPU tier of a variant (lab 05's change its float4 kernel) is judged on a
GPU machine with run_cases.py --variant K, which renders every kind of case with render_case.

  variant_case.py --cmake-list ROOT      the cases to register, "case;k;case;k..." (grader/selftest/CMakeLists.txt)
  variant_case.py --case FILE --lab-dir solutions/NN_name --variant K --out kernel.cu [--banklab B]
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
import materialize  # noqa: E402  (this folder is the script's: first on the path; it sets banklab's path)
from banklab.lab import labs as banklab_labs  # noqa: E402
from banklab.lab import lab_tests  # noqa: E402
from banklab.lab import variants as banklab_variants  # noqa: E402
from banklab.lab.schema import DescriptionError  # noqa: E402


def chosen_variant(lab: banklab_labs.Lab) -> int | None:
    """The variant a lab's cases are judged as besides 0: the last (None: the lab has no variants'
    answers, solutions/NN_name/variants.toml)."""
    v = banklab_variants.read(lab)
    if v is None or v.answer_templates is None:
        return None
    return v.count - 1


def cpu_tier(case: materialize.Case) -> bool:
    """A known-bad case whose EXPECT_FAIL test is a CPU test (not one judged by a GPU tool), or an
    alternative (judged on the CPU tier here: its GPU tests are the lab's, as for variant 0)."""
    if case.kind == "alternative":
        return True
    if case.kind != "bad" or case.first("EXPECT_TOOL"):
        return False
    test = (case.first("EXPECT_FAIL") or "").split()
    return bool(test) and lab_tests.tier_of(test[0].split(".")[0]) == "cpu"


def every_variant(case: materialize.Case) -> bool:
    """An alternative valid in every variant of its lab (`// VARIANTS: every`): judged as each, not
    only as the last (a lab's layouts differ with its variants: an alternative written for the lab's
    rows may be no valid layout of another's, and each variant keeps at least one valid alternative)."""
    return case.kind == "alternative" and (case.first("VARIANTS") or "").split()[:1] == ["every"]


def cases(root: Path) -> list[tuple[str, int]]:
    """(case path, variant) of every CPU-tier known-bad case and alternative of a lab with variants,
    as its last variant; an alternative valid in every variant (every_variant) as each k >= 1."""
    out = []
    for lab in banklab_labs.find_labs(root).values():
        k = chosen_variant(lab)
        if k is None:
            continue
        for kind in ("bad", "alternatives"):
            for p in sorted((lab.solution_dir / "cases" / kind).glob("*.patch")):
                case = materialize.load_case(str(p))
                for j in (range(1, k + 1) if every_variant(case) else [k]):
                    if cpu_tier(case) and applicable(lab, j, case):
                        out.append((p.as_posix(), j))
    return out


def missing_every_variant_alternative(root: Path) -> list[str]:
    """Each lab with variants that has no alternative marked valid in every variant and applicable
    to each (a variant whose valid layouts no alternative shows)."""
    out = []
    for lab in banklab_labs.find_labs(root).values():
        k = chosen_variant(lab)
        if k is None:
            continue
        marked = [c for p in sorted((lab.solution_dir / "cases" / "alternatives").glob("*.patch"))
                  if every_variant(c := materialize.load_case(str(p)))]
        if not any(all(applicable(lab, j, c) for j in range(1, k + 1)) for c in marked):
            out.append(f"lab {lab.number}: no alternative marked `// VARIANTS: every` that applies to every variant "
                       f"(solutions/{lab.folder}/cases/alternatives/)")
    return out


def applicable(lab: banklab_labs.Lab, k: int, case: materialize.Case) -> bool:
    """Whether the case's patch leaves every text variant k replaces (lab.toml [variants] kernel,
    variants.toml solution_kernel): a case that edits one is about the lab as written's kernel (lab
    04's loops of a 32-row tile, its pad), NOT APPLICABLE to a variant of another kernel, as
    run_cases.py counts it (render_case raises for it). Only the texts are compared: no model run."""
    v = banklab_variants.read(lab)
    try:
        patched = materialize.materialize(case, str(lab.solution_dir))
    except materialize.CaseError:
        return True   # its own run says why it cannot be made
    return all(old in patched for old, _ in [*v.kernel, *v.solution_kernel])


def prediction_line(text: str, name: str) -> str | None:
    m = re.search(rf"^\s*constexpr int {name} = [^\n]*", text, re.M)
    return m.group(0) if m else None


def render(lab: banklab_labs.Lab, k: int, patched: str) -> tuple[str, list[str]]:
    """The case's file (the solution with its patch) as variant k, and the templated predictions the
    patch changed (kept as the case wrote them)."""
    v = banklab_variants.read(lab)
    base = lab.solution.read_text()
    kept = sorted(n for n in (v.answer_templates or {}) if prediction_line(patched, n) != prediction_line(base, n))
    return banklab_variants.solution(lab, k, patched, set(kept)), kept


def render_case(lab: banklab_labs.Lab, k: int, case: materialize.Case, text: str) -> tuple[str, list[str]]:
    """Any case's file as variant k: a patch of the solution (a known-bad case, an alternative, a
    lab's .patch cheat) as render() does; a cheat made from the stub with the stub's replacements and
    line. Raises DescriptionError where the case took away a text the variant replaces (the case is
    about the lab as written: not applicable to the variant)."""
    if case.patches_solution:
        return render(lab, k, text)
    return banklab_variants.stub(lab, k, text), []


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmake-list", metavar="ROOT")
    ap.add_argument("--case")
    ap.add_argument("--lab-dir")
    ap.add_argument("--variant", type=int)
    ap.add_argument("--out")
    ap.add_argument("--banklab", help="the built banklab (the model that counts the variant's answers)")
    a = ap.parse_args(argv)
    if a.cmake_list:
        print(";".join(f"{p};{k}" for p, k in cases(Path(a.cmake_list))), end="")
        return 0
    if a.banklab:
        os.environ["BANKLAB_CLI"] = a.banklab
    try:
        case = materialize.load_case(a.case)
        patched = materialize.materialize(case, a.lab_dir)
        folder = os.path.basename(os.path.normpath(a.lab_dir))
        lab = banklab_labs.find_labs(Path(a.lab_dir).resolve().parents[1])[banklab_labs.lab_number(folder)]
        text, kept = render(lab, a.variant, patched)
    except (materialize.CaseError, DescriptionError, KeyError) as e:
        print(f"FAILED: {a.case} cannot be rendered as variant {a.variant}: {e}")
        return 1
    Path(a.out).write_text(text)
    print(f"{a.case} as lab {lab.number}'s variant {a.variant} ({banklab_variants.read(lab).describe(a.variant)}): the patch "
          f"applied to the solution, rendered as the variant" + (f"; the patch's own predictions kept: {', '.join(kept)}"
                                                                 if kept else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
