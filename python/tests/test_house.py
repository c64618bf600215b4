"""The house's structure counts (issue 34; docs/dev/ARCHITECTURE.md): checked on every run, so that a
new script or module cannot quietly undo them.

- One place puts the package on Python's path: at most 2 files patch sys.path (python/banklab_run.py).
- No Python module over 600 lines outside tests.
- No judge source in a student's folder: labs/NN_name/ holds no test.cu, probe.cu or lab.toml (they
  live in labs/NN_name/judge/).
- The package is a package: python/banklab/ has an __init__.py.
- Nothing in grader/ reaches into tools/: no #include of a tools/ path, no CMake line naming one.
"""
from __future__ import annotations

import os
import re
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIP = {".git", "build", ".carry", "out", "node_modules", "__pycache__", ".device"}
PATCH = re.compile(r"^\s*sys\.path\.(insert|append|extend)\(|^\s*sys\.path\s*(\[[^\]]*\])?\s*[+]?=")
THIS = Path(__file__).resolve()


def files(under: Path = ROOT):
    for d, subs, names in os.walk(under):
        subs[:] = [s for s in subs if s not in SKIP]
        for n in names:
            yield Path(d) / n


def python_files():
    for p in files():
        if p.suffix == ".py":
            yield p
        elif not p.suffix and p.is_file() and p.stat().st_size < 1 << 20:
            with open(p, "rb") as f:
                first = f.readline(200)
            if first.startswith(b"#!") and b"python" in first:
                yield p


def is_test(p: Path) -> bool:
    rel = p.relative_to(ROOT).as_posix()
    return "/tests/" in f"/{rel}" or p.name.startswith("test_")


class StructureCounts(unittest.TestCase):
    def test_one_place_sets_the_path(self):
        patching = sorted(p.relative_to(ROOT).as_posix() for p in python_files() if p != THIS and any(
            PATCH.search(line) for line in p.read_text(errors="replace").splitlines()))
        self.assertLessEqual(len(patching), 2, f"files that patch sys.path (at most 2; import the package through "
                             f"python/banklab_run.py, as docs/dev/CONVENTIONS.md says): {patching}")
        self.assertIn("python/banklab_run.py", patching)

    def test_no_module_over_600_lines(self):
        big = sorted((p.relative_to(ROOT).as_posix(), n) for p in python_files() if not is_test(p)
                     for n in [len(p.read_text(errors="replace").splitlines())] if n > 600)
        self.assertEqual(big, [], "Python modules over 600 lines outside tests: split them by topic")

    def test_no_judge_source_in_a_students_folder(self):
        found = sorted(f"{lab.name}/{n}" for lab in (ROOT / "labs").iterdir() if lab.is_dir()
                       for n in ("test.cu", "probe.cu", "lab.toml") if (lab / n).exists())
        self.assertEqual(found, [], "the judge's files of a lab live in labs/NN_name/judge/")

    def test_the_package_is_a_package(self):
        self.assertTrue((ROOT / "python" / "banklab" / "__init__.py").is_file())

    def test_grader_does_not_reach_into_tools(self):
        if not (ROOT / "grader").is_dir():
            self.skipTest("no grader/ in this tree")
        reach = []
        for p in files(ROOT / "grader"):
            if p.suffix in (".cpp", ".hpp", ".cu", ".cuh", ".h"):
                reach += [f"{p.relative_to(ROOT)}: {l.strip()}" for l in p.read_text(errors="replace").splitlines()
                          if re.match(r'\s*#\s*include\s*[<"][^>"]*tools/', l)]
            elif p.name == "CMakeLists.txt" or p.suffix == ".cmake":
                reach += [f"{p.relative_to(ROOT)}: {l.strip()}" for l in p.read_text(errors="replace").splitlines()
                          if re.search(r"(SOURCE_DIR\}|\.\.)/tools/", l.split("#", 1)[0])]
        self.assertEqual(reach, [], "grader/ reaches into tools/ (the tracer's core is trace/, the package python/)")


if __name__ == "__main__":
    unittest.main()
