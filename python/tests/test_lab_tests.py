"""Lab.tests() is the one list of a lab's tests (python/banklab/lab/lab_tests.py): the generator
registers exactly its generated tests, its names are the suites' own, and no second parser of test
names appears in the course (CMake, labs-check and the batch tools ask Lab.tests()). CTest's
registrations and the built judge's `list` are checked against it by judge.LabTestsAreOneList
(grader/tests/test_lab_tests_one_list.py), which needs a build.

  python3 python/banklab_run.py -m unittest discover -s python/tests -p 'test_lab_tests.py' -v
"""

import re
import subprocess
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
from banklab.lab import gen  # noqa: E402
from banklab.lab import gpu_tier  # noqa: E402
from banklab.lab import lab_tests  # noqa: E402
from banklab.lab import labs as banklab_labs  # noqa: E402
from banklab.lab.schema import DescriptionError  # noqa: E402

#: How a second list of a lab's tests shows itself: a parser of TEST(...) lines (a regex anchored
#: at TEST(, in Python or CMake), or a list named after the generated tests.
SECOND_LIST_RE = re.compile(r"\^TEST\\\\?\(|_banklab_tests_in|layout_tests|--list-tests|\btest_names\(")
#: Where the course's code lives (what reads a lab's tests is one of these files).
CODE_SUFFIXES = (".py", ".cmake", ".txt", ".sh", "")


def tracked_files() -> list[Path]:
    r = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, timeout=60)
    if r.returncode != 0:   # not a git checkout (a student release): every file
        return [p for p in ROOT.rglob("*") if p.is_file() and ".git" not in p.parts and "build" not in p.parts]
    return [ROOT / p for p in r.stdout.decode().split("\0") if p]


class OneList(unittest.TestCase):
    def test_each_lab_lists_its_tests_once_with_tier_and_labels(self):
        labs = banklab_labs.find_labs(ROOT)
        self.assertTrue(labs)
        for n, lab in labs.items():
            tests = lab.tests()
            names = [t.full_name for t in tests]
            self.assertEqual(len(names), len(set(names)), f"lab {n}: a test listed twice")
            kinds = {t.kind for t in tests}
            self.assertIn("written", kinds, f"lab {n}: no test of test.cu")
            self.assertIn("question", kinds, f"lab {n}: no question test")
            for t in tests:
                self.assertTrue(t.suite.startswith(f"Lab{n}"), t.full_name)
                self.assertEqual(t.tier, "gpu" if t.suite.endswith("OnGpu") else "cpu", t.full_name)
                self.assertEqual(t.labels, (f"lab{n}", t.tier), t.full_name)

    def test_the_generator_registers_exactly_the_generated_tests_of_the_list(self):
        """The data gen.py writes (kLayoutTests, kPredictionTests) names Lab.tests()'s generated
        tests, in its order, and each is registered by the one test of its kind."""
        for n, lab in banklab_labs.find_labs(ROOT).items():
            with tempfile.TemporaryDirectory() as out:
                rc = gen.main(["gen", str(lab.description_path), out, "--probe", str(lab.probe),
                               "--answers", str(lab.answers_path)])
                self.assertEqual(rc, 0, f"lab {n}: the generator failed")
                text = (Path(out) / f"lab{n}_questions_test.cpp").read_text()
            self.assertNotRegex(text, r"(?m)^TEST", f"lab {n}: the generator writes a TEST() again")
            self.assertIn(f'register_generated_tests(\n    "{n}", kLayoutTests, kQuestions, kPredictionTests', text)

            def rows(table: str) -> list[str]:
                body = text[text.index(f"{table}[] = {{"):]
                body = body[:body.index("\n};")]
                return re.findall(r'(?m)^    \{"([A-Za-z0-9_]+)",', body)
            want = {k: [t.name for t in lab.tests() if t.kind == k] for k in ("at_minimum", "question")}
            self.assertEqual(rows("kLayoutTests"), want["at_minimum"], f"lab {n}")
            self.assertEqual(rows("kPredictionTests"), want["question"], f"lab {n}")
            self.assertTrue(all(t.suite == f"Lab{n}Layout" for t in lab.tests() if t.kind == "at_minimum"))
            self.assertTrue(all(t.suite == f"Lab{n}Predictions" for t in lab.tests() if t.kind == "question"))

    def test_the_generator_writes_every_tests_tier_and_tracedness_and_the_gpu_tests(self):
        """kLabTests (labNN_questions_test.cpp) is Lab.tests() with each test's tier, traced-ness and
        timed-ness, the judge's only source of them; kGpuTests (labNN_gpu_test.cu) names the generated GPU tests, in order."""
        for n, lab in banklab_labs.find_labs(ROOT).items():
            with tempfile.TemporaryDirectory() as out:
                self.assertEqual(gen.main(["gen", str(lab.description_path), out, "--probe", str(lab.probe),
                                           "--answers", str(lab.answers_path)]), 0, f"lab {n}")
                text = (Path(out) / f"lab{n}_questions_test.cpp").read_text()
                gpu = (Path(out) / f"lab{n}_gpu_test.cu").read_text()
            rows = re.findall(r'(?m)^    \{"([A-Za-z0-9_.]+)", "(cpu|gpu)", (true|false), (true|false)\},', text)
            want = [(t.full_name, t.tier, "true" if t.traced else "false", "true" if t.timed else "false")
                    for t in lab.tests()]
            self.assertEqual(rows, want, f"lab {n}")
            self.assertIn(f'register_test_table("{n}", kLabTests)', text)
            made = [t.name for t in lab.tests() if t.kind in ("timing", "transpose")]
            self.assertEqual(re.findall(r'(?m)^    \{"([A-Za-z0-9_]+)", grader::GpuTest', gpu), made, f"lab {n}")
            self.assertNotRegex(gpu, r"(?m)^TEST", f"lab {n}: the generator writes a TEST() again")
            traced = [t.name for t in lab.tests() if t.traced]
            self.assertEqual(len(traced), 1, f"lab {n}: one traced test (its launch, traced), not {traced}")
            self.assertTrue(all(t.tier == "gpu" for t in lab.tests() if t.traced or t.kind in ("timing", "transpose")))

    def test_a_test_cu_that_writes_a_generated_test_is_refused(self):
        """A test the description makes, written again in test.cu, is refused by name; test.cu's other
        tests pass, and [gpu] traced must name one of them."""
        lab = banklab_labs.find_labs(ROOT)["04"]
        with tempfile.TemporaryDirectory() as d:
            cu = Path(d) / "test.cu"
            cu.write_text("TEST(Lab04OnGpu, RowWriteMeetsTheTimingTarget) {\n}\n")
            with self.assertRaisesRegex(DescriptionError, r"RowWriteMeetsTheTimingTarget\) is a test the description makes"):
                lab_tests.tests_of("04", lab.description, cu, [], "lab.toml")
            cu.write_text("TEST(Lab04OnGpu, RowWriteIsOwnWork) {\n}\n")
            names = [t.name for t in lab_tests.tests_of("04", lab.description, cu, [], "lab.toml")]
            self.assertIn("RowWriteIsOwnWork", names)
            self.assertIn("RowWriteMeetsTheTimingTarget", names)
            d2 = dict(lab.description, gpu={"traced": ["NoSuchTest"]})
            with self.assertRaisesRegex(DescriptionError, r"\[gpu\] traced: 'NoSuchTest'"):
                lab_tests.tests_of("04", d2, cu, [], "lab.toml")
            d3 = dict(lab.description, gpu={"traced": ["RowWriteIsOwnWork"]})
            self.assertEqual([t.name for t in lab_tests.tests_of("04", d3, cu, [], "lab.toml") if t.traced],
                             ["RowWriteIsOwnWork"])

    def test_timed_tests_are_the_descriptions_not_their_names(self):
        """A test times kernels when the description says so: a generated timing or transpose timing
        test by its kind, one of test.cu's by [gpu] timed (which must name one of test.cu's, and no
        traced one); a name with "Timing" in it decides nothing."""
        lab = banklab_labs.find_labs(ROOT)["04"]
        with tempfile.TemporaryDirectory() as d:
            cu = Path(d) / "test.cu"
            cu.write_text("TEST(Lab04OnGpu, TimingInNameOnly) {\n}\nTEST(Lab04OnGpu, Quick) {\n}\n")
            timed = {t.name for t in lab_tests.tests_of("04", lab.description, cu, [], "lab.toml") if t.timed}
            self.assertEqual(timed, {"RowWriteMeetsTheTimingTarget", "ColumnReadMeetsTheTimingTarget",
                                     "TransposeMeetsTheKernelTimingTarget",
                                     "TransposeTimedBesideATiledCopyStillTransposes"})
            d2 = dict(lab.description, gpu=dict(lab.description["gpu"], timed=["Quick"]))
            timed = {t.name for t in lab_tests.tests_of("04", d2, cu, [], "lab.toml") if t.timed}
            self.assertIn("Quick", timed)
            self.assertNotIn("TimingInNameOnly", timed)
            d3 = dict(lab.description, gpu={"timed": ["NoSuchTest"]})
            with self.assertRaisesRegex(DescriptionError, r"\[gpu\] timed: 'NoSuchTest'"):
                lab_tests.tests_of("04", d3, cu, [], "lab.toml")
        lab00 = banklab_labs.find_labs(ROOT)["00"].description
        gpu_tier.check(lab00)
        both = dict(lab00["gpu"], timed=lab00["gpu"]["timed"] + lab00["gpu"]["traced"])
        with self.assertRaisesRegex(DescriptionError, r"both traced and timed"):
            gpu_tier.check(dict(lab00, gpu=both))

    def test_the_cmake_list_is_the_labs_lists(self):
        labs = banklab_labs.find_labs(ROOT)
        fields = lab_tests.cmake_list(labs).split(";")
        self.assertEqual(len(fields) % 7, 0)
        rows = [fields[i:i + 7] for i in range(0, len(fields), 7)]
        want = [[n, t.full_name, t.tier, ",".join(t.labels), t.kind, str(int(t.traced)), str(int(t.timed))]
                for n, lab in labs.items() for t in lab.tests()]
        self.assertEqual(rows, want)

    def test_no_second_list_of_a_labs_tests(self):
        """Nothing but lab_tests.py parses test names out of C++ or keeps a list of the generated
        tests: CMake (cmake/BanklabLab.cmake), labs-check, the batch tools' fakes ask Lab.tests()."""
        me = Path(lab_tests.__file__).resolve()
        found = []
        for p in tracked_files():
            if p.resolve() in (me, Path(__file__).resolve()) or not p.is_file():
                continue
            if p.suffix not in CODE_SUFFIXES or "labs" in p.relative_to(ROOT).parts[:1]:
                continue
            try:
                text = p.read_text()
            except (UnicodeDecodeError, OSError):
                continue
            for k, line in enumerate(text.splitlines(), 1):
                if SECOND_LIST_RE.search(line):
                    found.append(f"{p.relative_to(ROOT)}:{k}: {line.strip()}")
        self.assertEqual(found, [], "a second list of a lab's tests (ask Lab.tests(), "
                                    "python/banklab/lab/lab_tests.py):\n" + "\n".join(found))

    def test_the_scan_finds_the_old_lists(self):
        """The scan's patterns catch the lists this change removed (CMake's regex over the sources,
        labs-check's and the batch tests' own regexes, Lab.layout_tests)."""
        old = ['file(STRINGS ${file} lines REGEX "^TEST\\\\( *Lab[0-9][0-9][A-Za-z0-9_]* *, *[A-Za-z0-9_]+ *\\\\)")',
               'TEST_RE = re.compile(r"^TEST\\(\\s*(\\w+)\\s*,\\s*(\\w+)\\s*\\)", re.M)',
               'for suite, name in re.findall(r"^TEST\\((\\w+),\\s*(\\w+)\\)", src, re.M):',
               "    for name in lab_.layout_tests:"]
        for line in old:
            self.assertRegex(line, SECOND_LIST_RE)


if __name__ == "__main__":
    unittest.main()
