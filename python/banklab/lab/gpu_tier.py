"""A lab's GPU tier as data (docs/dev/LAB_CONTRACT.md, "The GPU tier"): what the description says
about the tests that run on a GPU, checked, and the tests it makes.

  check(d)          what the keys say: each instruction's `timing` (its `only` names indices, `nth`
                    >= 0), [gpu.transpose] (its kernel, its launcher `transpose` with every role,
                    its `tile_rows` a number of the variants, its `traced_hint` a hint), [gpu] traced and timed
  generated(d)      [GpuTest]: the LabNNOnGpu tests the description makes, in their order
  TRACED_TEST       the name of the traced test [gpu.transpose] makes

The tests of test.cu, the description's and the instructor's are one list, Lab.tests()
(banklab.lab.lab_tests); banklab.lab.gen_gpu writes the C++ that registers these. Standard
library only.
"""
from __future__ import annotations

import dataclasses

from banklab.lab.schema import DescriptionError, timing_tests

#: The launcher of a [gpu.transpose] lab: transpose(out, in, width, height) (grader/tiled_transpose.cuh).
TRANSPOSE_LAUNCHER = "transpose"
#: The roles its launch must give a size: the correctness checks, the traced launch, the timing, the perf size.
TRANSPOSE_ROLES = ("correct", "traced", "timing", "perf")
#: The tests [gpu.transpose] makes (the first is named for its size: TransposeIsCorrectFor1024x1024).
NON_SQUARE_TEST = "TransposeIsCorrectForANonSquareMatrix"
TRACED_TEST = "TracedSharedAccessesAreConflictFree"
KERNEL_TIMING_TEST = "TransposeMeetsTheKernelTimingTarget"
BESIDE_A_COPY_TEST = "TransposeTimedBesideATiledCopyStillTransposes"


@dataclasses.dataclass(frozen=True)
class GpuTest:
    """One LabNNOnGpu test the description makes: its name, its kind, whether it runs traced, and
    what it reads (an instruction's name and its timing entry for "timing"; the launch role for
    "transpose_correct")."""
    name: str
    kind: str      # "timing", "transpose_correct", "transpose_traced", "transpose_kernel_timing", "transpose_beside_a_copy"
    traced: bool
    of: str = ""
    spec: dict = dataclasses.field(default_factory=dict, compare=False, repr=False)

    @property
    def timed(self) -> bool:
        """It times kernels (every kind but the transpose's correctness and traced tests)."""
        return self.kind in TIMED_KINDS


#: The kinds of generated test that time kernels.
TIMED_KINDS = ("timing", "transpose_kernel_timing", "transpose_beside_a_copy")


def launch(d: dict, launcher: str) -> dict | None:
    return next((t for t in d.get("launches", []) if t.get("launcher") == launcher), None)


def size_of(d: dict, launcher: str, role: str) -> list[int]:
    t = launch(d, launcher) or {}
    return t["sizes"][t["roles"].index(role)]


def check(d: dict) -> None:
    """The GPU tier's keys, after the instructions' tests (d["_hints"]), the kernels and the launches
    are checked; the test names the description makes are unique."""
    for n, t in enumerate(d["instructions"], 1):
        index = t.get("index") or []
        for k, tm in enumerate(timing_tests(t), 1):
            w = f"[[instructions]] #{n} ({t['name']}) timing #{k}"
            if "label" not in t:
                raise DescriptionError(f"{w}: needs key 'label' on the instruction: the test names its warp "
                                       "instruction by it")
            for v, x in tm.get("only", {}).items():
                if v not in index:
                    raise DescriptionError(f"{w}: key 'only': {v!r} is not one of key 'index' [{', '.join(index)}]")
                if type(x) is not int or x < 0:
                    raise DescriptionError(f"{w}: key 'only': {v} = {x!r} must be an index (an integer >= 0)")
            if tm.get("nth", 0) < 0:
                raise DescriptionError(f"{w}: key 'nth' must be >= 0 (the first warp instruction is 0)")
    gpu = d.get("gpu", {})
    if "transpose" in gpu:
        check_transpose(d, gpu["transpose"])
    names = [g.name for g in generated(d)]
    for g in names:
        if names.count(g) > 1:
            raise DescriptionError(f"the GPU tier makes two tests named {g!r}: give each timing test its own name")
    for key in ("traced", "timed"):
        for g in gpu.get(key, []):
            if g in names:
                raise DescriptionError(f"[gpu] {key}: {g!r} is a test the description makes, not one of test.cu's")
    both = sorted(set(gpu.get("traced", [])) & set(gpu.get("timed", [])))
    if both:
        raise DescriptionError(f"[gpu]: {both[0]!r} is both traced and timed (the tracer slows every kernel it "
                               "watches: a traced test cannot time)")


def check_transpose(d: dict, tr: dict) -> None:
    w = "[gpu.transpose]"
    if tr["kernel"] not in {k["name"] for k in d.get("kernels", [])}:
        raise DescriptionError(f"{w}: key 'kernel' = {tr['kernel']!r} has no [[kernels]] entry")
    t = launch(d, TRANSPOSE_LAUNCHER)
    if t is None or t["kernel"] != tr["kernel"]:
        raise DescriptionError(f"{w}: needs a [[launches]] entry launcher = {TRANSPOSE_LAUNCHER!r}, kernel = "
                               f"{tr['kernel']!r} (the tests launch the student's transpose(out, in, width, height))")
    unlabelled = [i["name"] for i in d["instructions"] if i["kernel"] == tr["kernel"] and "label" not in i]
    if unlabelled:
        raise DescriptionError(f"{w}: the instructions of {tr['kernel']} need key 'label' (the tests name the "
                               f"kernel's warp instructions by it): {', '.join(unlabelled)}")
    missing = [r for r in TRANSPOSE_ROLES if r not in t.get("roles", [])]
    if missing:
        raise DescriptionError(f"{w}: [[launches]] {TRANSPOSE_LAUNCHER}'s key 'roles' needs {', '.join(missing)} "
                               f"(one size each: {', '.join(TRANSPOSE_ROLES)})")
    for r in ("timing", "perf"):
        s = size_of(d, TRANSPOSE_LAUNCHER, r)
        if len(s) != 2 or s[0] != s[1]:
            raise DescriptionError(f"{w}: the {r} size of [[launches]] {TRANSPOSE_LAUNCHER} must be square "
                                   f"(n, n): the timing compares n x n transposes")
    if "tile_rows" in tr:
        v = d.get("variants") or d.get("_variants") or {}
        params = v.get("params", [])
        if tr["tile_rows"] not in params or not all(
                type(row[params.index(tr["tile_rows"])]) is int for row in v.get("values", [])):
            raise DescriptionError(f"{w}: key 'tile_rows' = {tr['tile_rows']!r} is not a number parameter of [variants]")
    if "traced_hint" in tr and tr["traced_hint"] not in d.get("_hints", {}):
        raise DescriptionError(f"{w}: key 'traced_hint' = {tr['traced_hint']!r} names no at_minimum test with a "
                               "hint of its own")


def generated(d: dict) -> list[GpuTest]:
    """The LabNNOnGpu tests the description makes, in the order the judge registers them: the
    transpose's correctness checks, its traced test, its whole-kernel timing, then each instruction's
    timing test in the description's order, then the transpose beside a tiled copy."""
    tr = d.get("gpu", {}).get("transpose")
    first, last = [], []
    if tr is not None and launch(d, TRANSPOSE_LAUNCHER) is not None:
        w, h = size_of(d, TRANSPOSE_LAUNCHER, "correct")
        first = [GpuTest(f"TransposeIsCorrectFor{w}x{h}", "transpose_correct", False, "correct"),
                 GpuTest(NON_SQUARE_TEST, "transpose_correct", False, "traced")]
        if "traced_hint" in tr:
            first.append(GpuTest(TRACED_TEST, "transpose_traced", True))
        first.append(GpuTest(KERNEL_TIMING_TEST, "transpose_kernel_timing", False))
        last = [GpuTest(BESIDE_A_COPY_TEST, "transpose_beside_a_copy", False)]
    timing = [GpuTest(tm["test"], "timing", False, t["name"], tm)
              for t in d.get("instructions", []) for tm in timing_tests(t) if "test" in tm]
    return first + timing + last
