"""A lab's tests: the one list (Lab.tests() returns it; docs/dev/GRADER.md, "A lab's tests").

A lab's tests come from three places, in this order (the order CTest registers them in):
  1. labs/NN_name/judge/test.cu: the lab's own judge code, one TEST(LabNN<Suite>, <Name>) each;
  2. the description (labs/NN_name/judge/lab.toml), as data the generator (gen.py, gen_gpu.py)
     writes and one test of each kind, written once in grader/include/grader/generated_tests.hpp
     (the CPU kinds) and generated_gpu_tests.cuh (the GPU kinds), registers:
     - "at_minimum": one LabNNLayout.<test> per `at_minimum` of an [[instructions]] entry;
     - "question": one LabNNPredictions.<test> per run of [[questions]] sharing a `test`;
     - "timing": one LabNNOnGpu.<test> per `timing` of an [[instructions]] entry;
     - "transpose": the LabNNOnGpu tests of [gpu.transpose] (banklab.lab.gpu_tier.generated);
  3. solutions/NN_name/instructor_*_test.cu (absent in the student release), sorted by name.
Each is a LabTest: its suite, name, tier ("gpu" for suites ending in OnGpu, else "cpu": the one
rule), CTest labels, kind, whether it runs under the tracer and whether it times kernels (a
generated test by its kind, one of test.cu's when the description's [gpu] traced or [gpu] timed
names it). CMake asks `python3
python/banklab_run.py -m banklab.lab.labs tests ROOT`; gen.py registers exactly generated() and
writes every test's tier, traced-ness and timed-ness into the judge's C++ (labNN_questions_test.cpp's
kLabTests, grader/include/grader/tests_of_lab.hpp), which the judge's process groups and its emulated twin read; CMake's list (cmake_list) carries them to the
GPU tools' tests (the tests that neither trace nor time); labs-check
and the batch tools' tests read tests(). judge.LabTestsAreOneList checks CTest's tests and
`banklab-judge list` against this list.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from banklab.lab import gpu_tier
from banklab.lab.schema import DescriptionError

#: A TEST(Suite, Name) line of a C++ test source: the only parser of test names in the course.
TEST_LINE_RE = re.compile(r"^TEST\( *([A-Za-z0-9_]+) *, *([A-Za-z0-9_]+) *\)", re.M)
#: A suite of a lab's tests: LabNN then its kind ("Lab05Layout", "Lab05OnGpu").
LAB_SUITE_RE = re.compile(r"Lab\d\d[A-Za-z0-9_]*")
#: The instructor-only checks of a lab, in solutions/NN_name/.
INSTRUCTOR_GLOB = "instructor_*_test.cu"


@dataclasses.dataclass(frozen=True)
class LabTest:
    """One test of a lab, as CTest and the judge name it: "<suite>.<name>"."""
    suite: str
    name: str
    tier: str                 # "cpu" or "gpu"
    labels: tuple[str, ...]   # CTest's: ("lab05", "cpu")
    kind: str                 # "written" (test.cu), "at_minimum", "question", "timing", "transpose", "instructor"
    traced: bool = False      # runs under the shared-memory tracer (a process of its own kind)
    timed: bool = False       # times kernels (the emulator skips it: it runs kernels, it does not time them)

    @property
    def full_name(self) -> str:
        return f"{self.suite}.{self.name}"

    def __str__(self) -> str:
        return self.full_name


def tier_of(suite: str) -> str:
    """A suite's tier: "gpu" for LabNN...OnGpu, else "cpu" (the one rule; the judge reads it from the generated
    table of tests, grader/tests_of_lab.hpp)."""
    return "gpu" if suite.endswith("OnGpu") else "cpu"


def source_tests(path: Path) -> list[tuple[str, str]]:
    """Every TEST(Suite, Name) of a C++ source, in its order, whatever the suite (labs-check
    checks the suites' prefixes with it)."""
    return TEST_LINE_RE.findall(Path(path).read_text())


def _at_minimum(t: dict) -> list:
    a = t.get("at_minimum", []) if isinstance(t, dict) else []
    return [a] if isinstance(a, dict) else (a if isinstance(a, list) else [])


def at_minimum_tests(description: dict) -> list[tuple[str, dict, dict]]:
    """[(test, instruction, at_minimum entry)] of the description, in its order: one LabNNLayout
    test each."""
    out = []
    for t in description.get("instructions", []):
        for am in _at_minimum(t):
            if isinstance(am, dict) and "test" in am:
                out.append((am["test"], t, am))
    return out


def question_tests(description: dict) -> list[tuple[str, list[int]]]:
    """[(test, [question indices])]: one LabNNPredictions test per run of questions sharing a `test`."""
    out: list[tuple[str, list[int]]] = []
    for i, q in enumerate(description.get("questions", [])):
        if not isinstance(q, dict) or "test" not in q:
            continue
        if out and out[-1][0] == q["test"]:
            out[-1][1].append(i)
        else:
            out.append((q["test"], [i]))
    return out


def _make(number: str, suite: str, name: str, kind: str, traced: bool = False, timed: bool = False) -> LabTest:
    tier = tier_of(suite)
    return LabTest(suite, name, tier, (f"lab{number}", tier), kind, traced, timed)


def generated(number: str, description: dict) -> list[LabTest]:
    """The tests the judge registers from the description's data (gen.py writes exactly these)."""
    out = [_make(number, f"Lab{number}Layout", n, "at_minimum") for n, _, _ in at_minimum_tests(description)]
    out += [_make(number, f"Lab{number}Predictions", n, "question") for n, _ in question_tests(description)]
    out += [_make(number, f"Lab{number}OnGpu", g.name, "timing" if g.kind == "timing" else "transpose", g.traced,
                  g.timed) for g in gpu_tier.generated(description)]
    return out


def written_of(key: str, number: str, description: dict, test_cu: Path, where: str) -> set[str]:
    """The tests of test.cu that the description's [gpu] `key` names ("traced": they run traced;
    "timed": they time kernels), each a LabNNOnGpu test of test.cu (DescriptionError, naming the
    description `where` and the key, otherwise; not checked where test.cu is absent)."""
    names = set(description.get("gpu", {}).get(key, []))
    if not test_cu.is_file():
        return names  # an absent test.cu is its own finding (labs-check: "... is missing"), not this one
    ours = {n for s, n in source_tests(test_cu) if s == f"Lab{number}OnGpu"}
    for n in sorted(names - ours):
        raise DescriptionError(f"{where}: [gpu] {key}: {n!r} is no TEST(Lab{number}OnGpu, {n}) of {test_cu}")
    return names


def tests(lab) -> list[LabTest]:
    """Every test of `lab` (a banklab.lab.labs.Lab), each once, in CTest's order (the module's doc)."""
    return tests_of(lab.number, lab.description, lab.test, instructor_sources(lab), str(lab.description_path))


def tests_of(number: str, description: dict, test_cu: Path, instructor: list[Path], where: str) -> list[LabTest]:
    """tests() of a lab given by its parts: its description (`where` names it in messages), its
    test.cu (absent: none) and its instructor-only sources (the generator, banklab.lab.gen, asks so)."""
    out: list[LabTest] = []
    traced = written_of("traced", number, description, test_cu, where)
    timed = written_of("timed", number, description, test_cu, where)

    def add(suite: str, name: str, kind: str, traced: bool = False, timed: bool = False) -> None:
        if LAB_SUITE_RE.fullmatch(suite) and all(t.full_name != f"{suite}.{name}" for t in out):
            out.append(_make(number, suite, name, kind, traced, timed))

    if test_cu.is_file():
        for suite, name in source_tests(test_cu):
            ours = suite == f"Lab{number}OnGpu"
            add(suite, name, "written", ours and name in traced, ours and name in timed)
    for t in generated(number, description):
        if any(w.full_name == t.full_name for w in out):
            raise DescriptionError(f"{test_cu}: TEST({t.suite}, {t.name}) is a test the description makes "
                                   f"({t.kind}, {where}): delete it from {test_cu.name}")
        add(t.suite, t.name, t.kind, t.traced, t.timed)
    for f in instructor:
        for suite, name in source_tests(f):
            add(suite, name, "instructor")
    return out


def instructor_sources(lab) -> list[Path]:
    """solutions/NN_name/instructor_*_test.cu, sorted (none in the student release)."""
    return sorted(lab.solution_dir.glob(INSTRUCTOR_GLOB)) if lab.solution_dir.is_dir() else []


def cmake_list(labs: dict) -> str:
    """Every lab's tests as one CMake list: NN;Suite.Name;tier;label,label;kind;traced;timed;... (7 fields
    a test; traced and timed are 1 or 0)."""
    return ";".join(f"{n};{t.full_name};{t.tier};{','.join(t.labels)};{t.kind};{int(t.traced)};{int(t.timed)}"
                    for n, lab in labs.items() for t in lab.tests())
