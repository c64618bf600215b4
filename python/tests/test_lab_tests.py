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
from banklab.lab import lab_tests  # noqa: E402
from banklab.lab import labs as banklab_labs  # noqa: E402

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

    def test_the_cmake_list_is_the_labs_lists(self):
        labs = banklab_labs.find_labs(ROOT)
        fields = lab_tests.cmake_list(labs).split(";")
        self.assertEqual(len(fields) % 5, 0)
        rows = [fields[i:i + 5] for i in range(0, len(fields), 5)]
        want = [[n, t.full_name, t.tier, ",".join(t.labels), t.kind] for n, lab in labs.items() for t in lab.tests()]
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
