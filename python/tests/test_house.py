"""The house's structure counts (issue 34; docs/dev/ARCHITECTURE.md): checked on every run, so that a
new script or module cannot quietly undo them.

- One place puts the package on Python's path: at most 2 files patch sys.path (python/banklab_run.py).
- No Python module over 600 lines outside tests.
- No judge source in a student's folder: labs/NN_name/ holds no test.cu, probe.cu or lab.toml (they
  live in labs/NN_name/judge/).
- The package is a package: python/banklab/ has an __init__.py.
- Nothing in grader/ reaches into tools/: no #include of a tools/ path, no CMake line naming one.
- No unused import in any Python file (pyflakes, Debian's python3-pyflakes; skipped, saying so, where
  it is not installed): an import block copied whole fails here.
- A banklab module is imported under one name everywhere (`from banklab.lab import labs as
  banklab_labs` in every file), and a name means one module.
- No facade: a name taken from a banklab module (`bpt.apply_points`, `from banklab.grading.points
  import PointsTable`) is one that module defines, not one it imports from another.
- No production file is named like a test: a file named test_* lives in a tests/ folder or is a Python
  program that CTest runs (a CMake file names it); the C++ tests are tests/*_test.cpp.
- bench/'s top level is its list: every file and folder there is a row of bench/README.md's table
  (a benchmark the project keeps running, or a piece one uses), and every row is there; a one-off
  experiment goes to bench/experiments/ (issue 48 item 5).
- A lab's GPU tier is data where it can be (docs/dev/LAB_CONTRACT.md, "The GPU tier"): no test.cu
  writes an instruction's timing test (`timing =` on its [[instructions]] entry) or the tiled
  transpose's tests ([gpu.transpose]), and the tests of test.cu that call BANKLAB_REQUIRE_TRACE() are
  exactly those its description's [gpu] traced names (the judge reads traced-ness from there).
- One border between C++ and Python (issue 48): no Python program reads a fact out of the C++ source
  of the model, the judge, the tracer, the emulator or the tools (no string of it names one of their
  .cpp/.hpp/.cu/.cuh/.h files); facts both use are data both read (common/data/ops.toml,
  grader/judge/limits.json, grader/judge/clean_text.toml). And a JSON format's schema name is
  spelled out in one Python module, banklab.schemas.
"""
from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
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


def pyflakes_command() -> list[str] | None:
    """How to run pyflakes here: this interpreter's, else Debian's python3-pyflakes (for /usr/bin/python3,
    also installed as pyflakes3), else None."""
    for cmd in ([sys.executable, "-m", "pyflakes"], ["/usr/bin/python3", "-m", "pyflakes"], ["pyflakes3"]):
        if (Path(cmd[0]).is_file() or shutil.which(cmd[0])) and subprocess.run(
                [*cmd, "--version"], capture_output=True).returncode == 0:
            return cmd
    return None


def module_of(dotted: str) -> Path | None:
    """python/banklab/x/y.py for "banklab.x.y", None where that is no module of the package."""
    p = (ROOT / "python" / Path(*dotted.split("."))).with_suffix(".py")
    return p if dotted.startswith("banklab.") and p.is_file() else None


_DEFINED: dict[Path, set[str]] = {}


def defined_in(module: Path) -> set[str]:
    """The names a module defines at its top level (def, class, assignment), not those it imports."""
    if module not in _DEFINED:
        out: set[str] = set()

        def body(stmts):
            for n in stmts:
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    out.add(n.name)
                elif isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                    for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                        out.update(x.id for x in ast.walk(t) if isinstance(x, ast.Name))
                elif isinstance(n, ast.If):
                    body(n.body), body(n.orelse)
                elif isinstance(n, ast.Try):
                    body(n.body), body(n.orelse), body(n.finalbody), [body(h.body) for h in n.handlers]
                elif isinstance(n, (ast.For, ast.With)):
                    body(n.body)
        body(ast.parse(module.read_text()).body)
        _DEFINED[module] = out
    return _DEFINED[module]


def banklab_imports(tree: ast.AST):
    """(line, what is imported: "banklab.x.y" or "banklab.x.y:Name", the local name) of each banklab import."""
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and n.level == 0 and (n.module or "").startswith("banklab"):
            for a in n.names:
                sub = f"{n.module}.{a.name}"
                yield n.lineno, sub if module_of(sub) else f"{n.module}:{a.name}", a.asname or a.name
        elif isinstance(n, ast.Import):
            for a in n.names:
                if a.asname and module_of(a.name):
                    yield n.lineno, a.name, a.asname


BENCH_ROW = re.compile(r"^\| `([^`/]+)/?` \|", re.M)


def bench_top_level_against_list(bench: Path) -> tuple[list[str], list[str]]:
    """(names at bench/'s top level that its README's table does not list, rows of the table that
    name nothing there)."""
    listed = set(BENCH_ROW.findall((bench / "README.md").read_text())) if (bench / "README.md").is_file() else set()
    there = {p.name for p in bench.iterdir() if p.name not in SKIP}
    return sorted(there - listed), sorted(listed - there)

#: Calls a lab's test.cu leaves to the tests its description makes (banklab.lab.gpu_tier): an
#: instruction's timing target (not the whole kernel's), the tiled transpose's kernel timing and copy.
GENERATED_GPU_CALL = re.compile(r"(?<![A-Za-z_])MeetsTimingTarget\(|transpose::MeetsTheKernelTimingTarget\(|"
                                r"TimedBesideATiledCopyStillTransposes\(")
#: The harness's timing calls a test of test.cu may make (grader/gpu/kernel_timing.cuh, replay.cuh,
#: timing.cuh): a test that makes one times kernels, and its description's [gpu] timed says so.
TIMING_CALL = re.compile(r"(?<![A-Za-z_])(?:KernelMeetsTimingTarget|time_pattern|interleaved_median_ms)\(")


def hand_written_gpu_tier(text: str, traced: set[str], timed: set[str] = frozenset()) -> list[str]:
    """What test.cu's `text` writes by hand that its description should say: a call of a generated
    GPU kind, a test whose BANKLAB_REQUIRE_TRACE() disagrees with the description's [gpu] traced, or
    one whose timing calls disagree with its [gpu] timed (the emulator skips exactly those)."""
    out = [f"line {text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}...): make it data (timing = {{ test, only, "
           f"nth }} on the instruction, or [gpu.transpose])" for m in GENERATED_GPU_CALL.finditer(text)]
    for chunk in text.split("\nTEST(")[1:]:
        head, _, body = chunk.partition("{")
        suite, _, name = (x.strip() for x in head.split(")")[0].partition(","))
        if not suite.endswith("OnGpu"):
            continue
        body = body.split("\n}\n")[0]
        calls = "BANKLAB_REQUIRE_TRACE()" in body
        if calls != (name in traced):
            out.append(f"{suite}.{name} {'calls' if calls else 'does not call'} BANKLAB_REQUIRE_TRACE() but [gpu] "
                       f"traced {'does not name' if calls else 'names'} it")
        times = TIMING_CALL.search(body) is not None
        if times != (name in timed):
            out.append(f"{suite}.{name} {'times' if times else 'does not time'} kernels but [gpu] timed "
                       f"{'does not name' if times else 'names'} it")
    return out


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


    def test_no_unused_import(self):
        cmd = pyflakes_command()
        if cmd is None:
            self.skipTest("pyflakes is not installed (Debian: apt-get install python3-pyflakes; tools/setup-debian --all)")
        paths = sorted(str(p) for p in python_files())
        r = subprocess.run([*cmd, *paths], capture_output=True, text=True)
        unused = [line.replace(str(ROOT) + "/", "") for line in r.stdout.splitlines()
                  if "imported but unused" in line or "redefinition of unused" in line]
        self.assertEqual(unused, [], "unused imports (an import block copied whole?): remove them, and import "
                         "what a file uses from the module that defines it")

    def test_one_name_per_module(self):
        names: dict[str, dict[str, list[str]]] = {}
        for p in python_files():
            for line, what, local in banklab_imports(ast.parse(p.read_text())):
                if ":" not in what:
                    names.setdefault(what, {}).setdefault(local, []).append(f"{p.relative_to(ROOT)}:{line}")
        twice = {m: {k: v[:3] for k, v in by.items()} for m, by in names.items() if len(by) > 1}
        self.assertEqual(twice, {}, "a banklab module imported under several names: use the one the other files use")
        meaning: dict[str, set[str]] = {}
        for m, by in names.items():
            for local in by:
                meaning.setdefault(local, set()).add(m)
        self.assertEqual({k: sorted(v) for k, v in meaning.items() if len(v) > 1}, {},
                         "one name given to several banklab modules: each module keeps one name of its own")

    def test_no_facade(self):
        found = []
        for p in python_files():
            tree = ast.parse(p.read_text())
            alias = {}
            for line, what, local in banklab_imports(tree):
                if ":" in what:
                    mod, name = what.split(":")
                    m = module_of(mod)
                    if m is not None and name not in defined_in(m):
                        found.append(f"{p.relative_to(ROOT)}:{line}: from {mod} import {name} ({mod} does not define it)")
                else:
                    alias[local] = what
            for n in ast.walk(tree):
                if (isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in alias
                        and not n.attr.startswith("__")):
                    m = module_of(alias[n.value.id])
                    if n.attr not in defined_in(m):
                        found.append(f"{p.relative_to(ROOT)}:{n.lineno}: {n.value.id}.{n.attr} "
                                     f"({alias[n.value.id]} does not define it)")
        self.assertEqual(found, [], "a name taken from a module that only imports it: import it from the module "
                         "that defines it")

    def test_no_production_file_is_named_like_a_test(self):
        cmake = "\n".join(p.read_text(errors="replace") for p in files()
                          if p.name == "CMakeLists.txt" or p.suffix == ".cmake")
        wrong = []
        for p in files():
            rel = p.relative_to(ROOT).as_posix()
            if not p.name.startswith("test_") or "/tests/" in f"/{rel}":
                continue              # a tests/ folder holds tests and their helpers
            if p.suffix == ".py" and re.search(rf"\b{re.escape(p.stem)}\b", cmake):
                continue              # a test program that CTest runs (by its path, or -m unittest NAME)
            wrong.append(rel)
        self.assertEqual(wrong, [], "files named test_* that are no test (name them for what they do; tools and "
                         "people that skip tests skip them): a test lives in a tests/ folder or is a program CTest runs")

    def test_bench_top_level_is_its_list(self):
        if not (ROOT / "bench").is_dir():
            self.skipTest("no bench/ in this tree")
        unlisted, absent = bench_top_level_against_list(ROOT / "bench")
        self.assertEqual(unlisted, [], "files at bench/'s top level that bench/README.md does not list: a one-off "
                         "experiment goes to bench/experiments/NAME/ (with its README), a benchmark gets its row")
        self.assertEqual(absent, [], "rows of bench/README.md's table that name no file in bench/")

    def test_bench_list_rule_fails_an_unlisted_file_and_passes_a_listed_one(self):
        with tempfile.TemporaryDirectory() as t:
            bench = Path(t)
            (bench / "README.md").write_text("| name | what |\n| --- | --- |\n| `README.md` | this |\n"
                                             "| `lib/` | shared |\n| `speed.sh` | a benchmark |\n")
            (bench / "lib").mkdir()
            (bench / "speed.sh").write_text("")
            self.assertEqual(bench_top_level_against_list(bench), ([], []))
            (bench / "device_once.sh").write_text("")           # a one-off left at the top
            self.assertEqual(bench_top_level_against_list(bench), (["device_once.sh"], []))
            (bench / "device_once.sh").unlink()
            (bench / "speed.sh").unlink()                       # a row whose file moved away
            self.assertEqual(bench_top_level_against_list(bench), ([], ["speed.sh"]))
    def test_a_labs_gpu_tier_is_data(self):
        found = []
        for toml in sorted(ROOT.glob("labs/*/judge/lab.toml")) + sorted(ROOT.glob("grader/labs/*/lab.toml")):
            test_cu = toml.parent / "test.cu"
            if not test_cu.is_file():
                continue
            gpu = tomllib.loads(toml.read_text()).get("gpu", {})
            found += [f"{test_cu.relative_to(ROOT)}: {w}" for w in hand_written_gpu_tier(
                test_cu.read_text(), set(gpu.get("traced", [])), set(gpu.get("timed", [])))]
        self.assertEqual(found, [], "a lab's test.cu writes what its description says (docs/dev/LAB_CONTRACT.md, "
                         "\"The GPU tier\")")

    def test_the_gpu_tier_rule_fails_its_case_and_passes_its_alternative(self):
        written = ("\nTEST(Lab09OnGpu, LoadsMeetTheTimingTarget) {\n  BANKLAB_REQUIRE_GPU();\n"
                   "  BANKLAB_EXPECT(grader::gpu::MeetsTimingTarget(lab09_judge::load()[3]));\n}\n"
                   "\nTEST(Lab09OnGpu, TracedX) {\n  BANKLAB_REQUIRE_GPU();\n  BANKLAB_REQUIRE_TRACE();\n}\n")
        self.assertEqual(len(hand_written_gpu_tier(written, set())), 2)   # the timing call, the undeclared trace
        self.assertEqual(len(hand_written_gpu_tier(written, {"TracedX", "Other"})), 1)
        data = ("\nTEST(Lab09OnGpu, KernelMeetsTheTarget) {\n  BANKLAB_EXPECT(grader::gpu::KernelMeetsTimingTarget(\n"
                "      \"w\", a, b, c, d));\n}\n\nTEST(Lab09OnGpu, Watched) {\n  BANKLAB_REQUIRE_TRACE();\n}\n"
                "\nTEST(Lab09Layout, NotTraced) {\n  BANKLAB_CHECK(true);\n}\n")
        self.assertEqual(hand_written_gpu_tier(data, {"Watched"}, {"KernelMeetsTheTarget"}), [])
        self.assertEqual(len(hand_written_gpu_tier(data, {"Watched", "KernelMeetsTheTarget"}, {"KernelMeetsTheTarget"})), 1)
        # [gpu] timed: a test that times and is not named, and a named one that does not time, each fail.
        self.assertEqual(len(hand_written_gpu_tier(data, {"Watched"})), 1)
        self.assertEqual(len(hand_written_gpu_tier(data, {"Watched"}, {"KernelMeetsTheTarget", "Watched"})), 1)


#: The C++ whose text no Python program may read for a fact: the implementation (not a lab's files).
CXX_SOURCE_DIRS = ("common/include", "common/src", "grader/judge", "grader/include", "grader/probe", "trace/src",
                   "trace/include", "emu/src", "emu/include", "tools/lib", "tools/trace", "tools/calibrate")
CXX_SUFFIXES = (".cpp", ".hpp", ".cu", ".cuh", ".h")
SCHEMA_NAME = re.compile(r"^banklab\.[a-z_.]+\.v\d+$")


def cxx_source_names() -> set[str]:
    out = set()
    for d in CXX_SOURCE_DIRS:
        for p in files(ROOT / d):
            if p.suffix in CXX_SUFFIXES and "/tests/" not in f"/{p.relative_to(ROOT).as_posix()}":
                head = p.read_text(errors="replace")[:400].lower()
                if not ("generated" in head and "python/banklab/" in head):   # one a Python generator writes
                    out.add(p.name)
    return out


def border_findings(source: str, where: str, cxx_names: set[str]) -> list[str]:
    """Where `source` (a Python program's text) names a C++ source file of the implementation in a
    string (not its docstrings), or spells out a schema name (unless it is banklab/schemas.py)."""
    tree = ast.parse(source)
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    out = []
    for n in ast.walk(tree):
        if not isinstance(n, ast.Constant) or not isinstance(n.value, str) or id(n) in docs:
            continue
        last = n.value.rsplit("/", 1)[-1]
        if last in cxx_names and re.fullmatch(r"[\w./-]+", n.value):
            out.append(f"{where}:{n.lineno}: names the C++ source {n.value!r}")
        if SCHEMA_NAME.match(n.value) and not where.endswith("python/banklab/schemas.py"):
            out.append(f"{where}:{n.lineno}: spells out the schema {n.value!r} (banklab.schemas has its name)")
    return out


class OneBorder(unittest.TestCase):
    def test_the_check_finds_a_reader_of_cpp_source_and_passes_a_reader_of_data(self):
        names = {"build.cpp", "model.hpp"}
        bad = 'import re\nt = (root / "grader" / "judge" / "build.cpp").read_text()\nre.search("kX = (\\d+)", t)\n'
        also_bad = 'T = open("common/include/banklab/model.hpp").read()\n'
        schema_bad = 'if d.get("schema") != "banklab.verdict.v1": pass\n'
        good = '"""Reads nothing of build.cpp."""\nimport json\nd = json.load(open("grader/judge/limits.json"))\n'
        self.assertEqual(len(border_findings(bad, "x.py", names)), 1)
        self.assertEqual(len(border_findings(also_bad, "x.py", names)), 1)
        self.assertEqual(len(border_findings(schema_bad, "x.py", names)), 1)
        self.assertEqual(border_findings(schema_bad, "python/banklab/schemas.py", names), [])
        self.assertEqual(border_findings(good, "x.py", names), [])

    def test_no_python_program_reads_cpp_source_for_a_fact(self):
        names = cxx_source_names()
        self.assertIn("model.hpp", names)
        found = []
        for p in python_files():
            if is_test(p) or p == THIS:
                continue
            found += border_findings(p.read_text(errors="replace"), p.relative_to(ROOT).as_posix(), names)
        self.assertEqual(found, [], "facts both languages use are data both read (docs/dev/ARCHITECTURE.md, "
                         "'One border'), and a schema's name lives in banklab.schemas")


if __name__ == "__main__":
    unittest.main()
