#!/usr/bin/env python3
"""Issue 34: Lab.tests() (python/banklab/lab/lab_tests.py) is the one list of a lab's tests. CTest's
registrations of every lab (cmake/BanklabLab.cmake asks it) and the tests the built judge holds
(`banklab-judge list`: test.cu's TEST()s and those registered from the description's data by
grader/generated_tests.hpp) must equal it: names, order, tiers and CTest labels.

  test_lab_tests_one_list.py --judge build/dev/grader/banklab-judge --build build/dev --root . [--ctest CTEST]
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

from banklab.lab import labs as banklab_labs

#: CTest's tests of a lab that are not a judge test of it (cmake/BanklabLab.cmake).
NOT_JUDGE_TESTS = ("build", "summary", "ncu", "sanitize.memcheck", "sanitize.racecheck")


def ctest_tests(ctest: str, build: Path) -> dict[str, list[tuple[str, list[str]]]]:
    """{lab: [(Suite.Name, labels)]} as CTest registered them, in its order."""
    r = subprocess.run([ctest, "--show-only=json-v1"], cwd=build, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        sys.exit(f"ctest --show-only=json-v1 failed in {build}: {r.stderr}")
    out: dict[str, list[tuple[str, list[str]]]] = {}
    for t in json.loads(r.stdout)["tests"]:
        label, _, rest = t["name"].partition(".")
        n = banklab_labs.lab_number(label)
        if not (label == f"lab{n}" and rest and rest not in NOT_JUDGE_TESTS):
            continue
        labels = next((p["value"] for p in t.get("properties", []) if p["name"] == "LABELS"), [])
        if "selftest" in labels:   # the course's own suites (labNN.stub_fails, .bad.*, .alt.*, .cheat.*:
            continue               # grader/selftest/CMakeLists.txt), not the lab's tests
        out.setdefault(n, []).append((rest, sorted(labels)))   # CTest prints them sorted
    return out


def judge_tests(judge: Path) -> dict[str, list[tuple[str, str]]]:
    """{lab: [(Suite.Name, tier)]} as `banklab-judge list` prints them (googletest's order)."""
    r = subprocess.run([str(judge), "list"], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        sys.exit(f"{judge} list failed ({r.returncode}): {r.stderr}")
    out: dict[str, list[tuple[str, str]]] = {}
    for line in r.stdout.splitlines():
        n, name, tier = line.split()
        out.setdefault(n, []).append((name, tier))
    return out


def by_suite(tests: list) -> list:
    """googletest's order: a suite's tests together, suites in the order of their first test."""
    suites: dict[str, list] = {}
    for t in tests:
        suites.setdefault(t.suite, []).append(t)
    return [t for ts in suites.values() for t in ts]


def differences(what: str, have: list, want: list) -> list[str]:
    """What `have` lacks, adds or orders differently from Lab.tests()'s `want`."""
    if have == want:
        return []
    out = [f"{what} lacks {w} (Lab.tests() has it)" for w in want if w not in have]
    out += [f"{what} has {h}, which Lab.tests() does not" for h in have if h not in want]
    return out or [f"{what} orders the tests otherwise than Lab.tests(): {[h[0] for h in have]}"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--judge", type=Path, required=True)
    ap.add_argument("--build", type=Path, required=True)
    ap.add_argument("--root", type=Path, required=True)
    ap.add_argument("--ctest", default="ctest", help="the ctest of the build (default: ctest on PATH)")
    a = ap.parse_args()
    labs = banklab_labs.find_labs(a.root)
    registered, held = ctest_tests(a.ctest, a.build), judge_tests(a.judge)
    bad = []
    for n, lab in labs.items():
        want = lab.tests()
        ctest_want = [(t.full_name, sorted(t.labels)) for t in want]
        bad += differences(f"lab {n}: CTest", registered.get(n, []), ctest_want)
        judge_want = [(t.full_name, t.tier) for t in by_suite(want)]
        bad += differences(f"lab {n}: banklab-judge list", held.get(n, []), judge_want)
        print(f"lab {n}: {len(want)} tests ({sum(t.kind in ('at_minimum', 'question') for t in want)} from the "
              f"description's data): CTest {len(registered.get(n, []))}, judge {len(held.get(n, []))}")
    extra = sorted(set(registered) - set(labs)) + sorted(set(held) - set(labs))
    if extra:
        bad.append(f"tests of labs that Lab.tests() does not know: {extra}")
    if bad:
        print("\n".join(bad), file=sys.stderr)
        return 1
    print(f"{len(labs)} labs: CTest's tests and the judge's equal Lab.tests()")
    return 0


if __name__ == "__main__":
    sys.exit(main())
