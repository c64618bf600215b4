#!/usr/bin/env python3
"""The release's answer check can fail, and does not fail the innocent (CTest:
release.AnswerCheckCatchesWhatIsPlantedInARelease).

  python3 -m unittest -v instructor/release/test_check_no_answers.py

One student release is written (instructor/make-release); each case copies it, plants text into one
of its files and runs instructor/release/check_no_answers.py on the copy. What is planted is read from
the course's solutions/ at run time (a solution line, an answer's formula, access or value), so
this file holds no answer; the check's messages must name what was planted without repeating it.
The innocent cases are lines the rules must let through: the stub's own lines, a formula inside
a bigger expression, a question's unanswered constant, a question's access without its name.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
COURSE = HERE.parents[1]
from banklab.release import answers as cna  # noqa: E402  (the check; check_no_answers.py is its command)
from banklab.lab import expr as banklab_expr  # noqa: E402


def answers(folder: str) -> dict:
    return tomllib.loads((COURSE / "solutions" / folder / "answers.toml").read_text())


def solution_constant(folder: str, name: str) -> str:
    m = re.search(r"\b%s\s*=\s*([^;]+);" % name, (COURSE / "solutions" / folder / "kernel.cu").read_text())
    return m.group(1)


def first_needle(folder: str, comment: bool) -> tuple[str, str]:
    """A distinctive part of a solution's line (code or comment) and the file:line the check names."""
    sol = (COURSE / "solutions" / folder / "kernel.cu").read_text().splitlines()
    for nd in cna.solution_needles(COURSE, folder):
        n = int(nd.what.rsplit(":", 1)[1])
        code, note = cna.split_comment(sol[n - 1])
        part = note if comment else code
        if part.strip() and cna.tokens(part) == nd.toks:
            return part.strip(), nd.what
    raise AssertionError(f"solutions/{folder}/kernel.cu has no distinctive {'comment' if comment else 'code'}")


def respaced(text: str) -> str:
    """The same tokens, spaced otherwise: `f(a * (b + c));` -> `f ( a * ( b + c ) ) ;`."""
    return " ".join(cna.tokens(text))


# Each case: (name, file of the release to write into, a function giving (text to append,
# expected words of the hit), planted text that the output must not repeat).
def case_solution_code():
    text, where = first_needle("05_swizzle", comment=False)
    return "  " + respaced(text) + "  // a reference kernel\n", [where], text


def case_solution_comment():
    text, where = first_needle("06_ldmatrix", comment=True)
    return "# " + text + "\n", [where], text


def case_value_formula():
    f = answers("04_padding")["kPaddedTileBytes"]["value"]
    return f"The tile takes {respaced(f)} bytes.\n", ["04_padding", "kPaddedTileBytes", "value formula"], f


def case_value_number():
    v = banklab_expr.evaluate(solution_constant("04_padding", "kDoublePad"))
    return f"constexpr int kDoublePad = {v};\n", ["04_padding", "kDoublePad", "graded value"], f"= {v};"


def case_keyed_access():
    line = answers("01_32way_conflict")["kStride16Wavefronts"]["access"]
    expr = banklab_expr.split_access(line)[2]
    return f'kStride16Wavefronts = "{expr}"\n', ["01_32way_conflict", "kStride16Wavefronts", "access"], expr


def case_swizzled_access():
    line = answers("05_swizzle")["kSwizzledChunkColumnReadWavefronts"]["access"]
    expr = banklab_expr.split_access(line)[2]
    return (f'banklab explain ld 16 "{expr}"\n', ["05_swizzle", "kSwizzledChunkColumnReadWavefronts"], expr)


PLANTED = [
    ("SolutionCodeLineInJudgeCode", "grader/labs/06_ldmatrix/test.cu", case_solution_code),
    ("SolutionCommentInADescription", "grader/labs/06_ldmatrix/lab.toml", case_solution_comment),
    ("AnswerFormulaInAHandout", "labs/04_padding/README.md", case_value_formula),
    ("AnsweredConstantInAStub", "labs/04_padding/kernel.cu", case_value_number),
    ("AccessNextToItsQuestion", "docs/pages/index.md", case_keyed_access),
    ("SwizzledAccessAnywhere", "README.md", case_swizzled_access),
]


def innocent_lines() -> str:
    """Lines the rules let through, built from the course as the planted ones are."""
    stub = (COURSE / "labs" / "05_swizzle" / "kernel.cu").read_text().splitlines()
    todo = next(l for l in stub if "LAB TODO" in l and "swizzle" in l)
    f = answers("05_swizzle")["kStoredColumnOfRow5Col3"]["value"]
    premise = banklab_expr.split_access(answers("01_32way_conflict")["kStride16Wavefronts"]["access"])[2]
    return "\n".join([
        todo.replace("// LAB TODO: ", "// "),             # the stub's question, its TODO mark gone
        "__syncthreads();",                               # a generic idiom
        f"x = 6 & {f};",                                  # the formula inside a bigger expression
        f"x = 1{f}0;",                                    # ... with digits glued to it
        "constexpr int kDoublePad = -1;",                 # the question's unanswered constant
        f'banklab explain ld 4 "{premise}"',              # a question's access, without its name
    ]) + "\n"


class AnswerCheck(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="answer-check-"))
        cls.release = cls.tmp / "release"
        subprocess.run([sys.executable, COURSE / "instructor" / "make-release", cls.release], check=True,
                       capture_output=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def copy(self, name: str) -> Path:
        dst = self.tmp / name
        shutil.copytree(self.release, dst)
        return dst

    def plant(self, rel: Path, path: str, text: str) -> int:
        f = rel / path
        before = f.read_text()
        if not before.endswith("\n"):
            before += "\n"
        f.write_text(before + text)
        return before.count("\n") + 1   # the planted line's number

    def test_planted(self):
        for name, path, make in PLANTED:
            with self.subTest(name):
                text, words, secret = make()
                rel = self.copy(name)
                line = self.plant(rel, path, text)
                r = subprocess.run([sys.executable, HERE / "check_no_answers.py", rel], capture_output=True, text=True)
                out = r.stdout + r.stderr
                self.assertEqual(r.returncode, 1, out)
                hits = [h.strip() for h in out.splitlines() if h.strip().startswith(f"{path}:{line}:")]
                self.assertTrue(hits, f"{name}: nothing found at {path}:{line} after planting:\n{out}")
                for w in words:
                    self.assertIn(w, "\n".join(hits))
                self.assertNotIn(secret.strip(), out, "the message repeats the answer")
                self.assertNotIn(re.sub(r"\s+", "", secret), re.sub(r"\s+", "", out), "the message repeats the answer")

    def test_solutions_folder_and_answers_file(self):
        rel = self.copy("solutions")
        shutil.copytree(COURSE / "solutions" / "04_padding", rel / "solutions" / "04_padding")
        hits, _, _ = cna.check(rel, COURSE)
        self.assertTrue(any(h.startswith("solutions/: the release holds") for h in hits), hits)
        self.assertTrue(any("answers.toml: an answers file" in h for h in hits), hits)

    def test_innocent_lines_pass(self):
        rel = self.copy("innocent")
        path = "labs/05_swizzle/README.md"
        line = self.plant(rel, path, innocent_lines())
        hits, problems, _ = cna.check(rel, COURSE)
        self.assertEqual(problems, [])
        planted = range(line, line + innocent_lines().count("\n"))
        self.assertEqual([h for h in hits if h.startswith(path + ":") and int(h.split(":")[1]) in planted], [])

    def test_make_release_runs_the_check(self):
        """make-release checks every student release itself: a course file that gives an answer away
        makes it exit 1, say so without repeating the answer, and commit nothing with --git."""
        course = self.tmp / "course"
        subprocess.run(["git", "clone", "-q", str(COURSE), str(course)], check=True)
        tracked = subprocess.run(["git", "-C", str(COURSE), "ls-files", "-z"], check=True, capture_output=True,
                                 text=True).stdout.split("\0")
        for rel in filter(None, tracked):   # the working tree's files, as make-release reads them
            if (COURSE / rel).is_file():
                shutil.copy2(COURSE / rel, course / rel)
        text, _, secret = case_solution_code()
        readme = course / "labs" / "05_swizzle" / "README.md"
        readme.write_text(readme.read_text() + "\n" + text)   # tracked: make-release copies the working tree
        out = self.tmp / "leaky-release"
        r = subprocess.run([sys.executable, course / "instructor" / "make-release", out, "--git"],
                           capture_output=True, text=True)
        said = r.stdout + r.stderr
        self.assertEqual(r.returncode, 1, said)
        self.assertIn("gives answers away", said)
        self.assertIn("labs/05_swizzle/README.md:", said)
        self.assertNotIn(secret.strip(), said, "the message repeats the answer")
        self.assertFalse((out / ".git").exists(), "a release that gives answers away was committed")


if __name__ == "__main__":
    unittest.main()
