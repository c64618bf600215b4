#!/usr/bin/env python3
"""Releases per student (issue 35 item 3; docs/dev/VARIANTS.md): each check with a case that fails
it and one that passes (CTest: release.PerStudent*).

  python3 -m unittest -v instructor/release/test_per_student.py

One roster run (instructor/make-release --roster, two students whose lab 05 variants differ, drawn
here from the course seed) gives two students' releases; a plain release is the case that fails the
"speaks of the student's numbers" check. --with-solutions needs the model (`banklab`: $BANKLAB_CLI
or a build of the course). CPU only.
"""
from __future__ import annotations

import csv
import json
import os
import runpy
import shutil
import subprocess
import sys
import tempfile
import tomllib
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
COURSE = HERE.parents[1]
runpy.run_path(str(COURSE / "python" / "banklab_run.py"))
from banklab.lab import expr as banklab_expr  # noqa: E402
from banklab.lab import labs as banklab_labs  # noqa: E402
from banklab.lab import variants as banklab_variants  # noqa: E402
from banklab.release import per_student, prairielearn  # noqa: E402

MAKE = COURSE / "instructor" / "make-release"
SEED = "per-student-test-seed"
LAB = banklab_labs.find_labs(COURSE)["05"]


def make(*args, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(MAKE), *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)


def two_students() -> list[str]:
    """Two logins whose lab 05 variants differ (>= 1 both: their files carry a marker line)."""
    n = banklab_variants.read(LAB).count
    seen: dict[int, str] = {}
    for i in range(200):
        k = banklab_variants.choose("05", f"st{i}", SEED, n)
        if k and k not in seen:
            seen[k] = f"st{i}"
        if len(seen) == 2:
            return list(seen.values())
    raise AssertionError("no two students with different lab 05 variants in 200")


def speaks_of(rel: Path, lab: banklab_labs.Lab, k: int) -> list[str]:
    """What in the release `rel` does not state lab `lab`'s variant k: its stub, the judge's question
    texts (the release's lab.toml, read back), its handout's "Your numbers" section."""
    p = []
    if (rel / "labs" / lab.folder / "kernel.cu").read_text() != banklab_variants.stub(lab, k):
        p.append("the stub is not the variant's")
    got = tomllib.loads((rel / "grader" / "labs" / lab.folder / "lab.toml").read_text())
    want = banklab_variants.description(lab, k)
    if [(q.get("what"), q.get("hint")) for q in got["questions"]] != \
            [(q.get("what"), q.get("hint")) for q in want["questions"]]:
        p.append("the judge's question texts are not the variant's")
    if got.get("variants", {}).get("release") != k:   # the release's judge grades k whatever the file's line
        p.append(f"the judge's lab.toml does not say the release is variant {k} ([variants] release)")
    readme = (rel / "labs" / lab.folder / "README.md").read_text()
    if per_student.NUMBERS_HEADING not in readme or banklab_variants.read(lab).describe(k) not in readme:
        p.append("the handout has no section with the variant's numbers")
    return p


class PerStudent(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="banklab_per_student_"))
        cls.students = two_students()
        roster = cls.tmp / "roster.csv"
        roster.write_text("Student,ID,SIS User ID,SIS Login ID,Section\n    Points Possible,,,,\n"
                          + "".join(f'"Doe, {s}",{i},s{i},{s.upper()},A\n' for i, s in enumerate(cls.students)))
        cls.roster = make(cls.tmp / "class", "--roster", roster, "--course-seed", SEED)
        cls.plain = make(cls.tmp / "plain")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def rel(self, student: str) -> Path:
        return self.tmp / "class" / student

    def test_roster_makes_one_release_per_row_and_the_instructors_list(self):
        self.assertEqual(self.roster.returncode, 0, self.roster.stderr)
        self.assertEqual(sorted(p.name for p in (self.tmp / "class").iterdir()),
                         sorted(self.students + ["roster-variants.csv"]))
        with open(self.tmp / "class" / "roster-variants.csv") as f:
            rows = list(csv.DictReader(f))
        for s in self.students:
            mine = {r["lab"]: int(r["variant"]) for r in rows if r["login"] == s}
            for n, lab in banklab_labs.find_labs(COURSE).items():
                v = banklab_variants.read(lab)
                if v is not None:
                    self.assertEqual(mine[n], banklab_variants.choose(n, s, SEED, v.count), (s, n))

    def test_two_students_get_their_own_lab05_stub_texts_and_handout(self):
        ks = [banklab_variants.choose("05", s, SEED, banklab_variants.read(LAB).count) for s in self.students]
        self.assertNotEqual(ks[0], ks[1])
        for s, k in zip(self.students, ks):
            self.assertEqual(speaks_of(self.rel(s), LAB, k), [], s)
            self.assertEqual(banklab_variants.named_variant((self.rel(s) / "labs/05_swizzle/kernel.cu").read_text(),
                                                            "05"), k)
        a, b = (self.rel(s) / "labs/05_swizzle" for s in self.students)
        self.assertNotEqual((a / "kernel.cu").read_text(), (b / "kernel.cu").read_text())
        self.assertNotEqual((a / "README.md").read_text(), (b / "README.md").read_text())
        # The failing case: a plain release states the lab as written, not a student's variant.
        self.assertEqual(self.plain.returncode, 0, self.plain.stderr)
        self.assertEqual(len(speaks_of(self.tmp / "plain", LAB, ks[0])), 4)

    def test_the_judge_is_generated_with_the_students_texts(self):
        """gen.py (what the release's build runs) writes the student's question texts into the judge."""
        s = self.students[0]
        k = banklab_variants.choose("05", s, SEED, banklab_variants.read(LAB).count)
        base = {q["name"]: q.get("what") for q in LAB.description["questions"]}
        want = next(q for q in banklab_variants.description(LAB, k)["questions"] if q.get("what") != base[q["name"]])
        for rel, expect in ((self.rel(s), True), (self.tmp / "plain", False)):
            out = self.tmp / f"gen_{rel.name}"
            r = subprocess.run([sys.executable, "-m", "banklab.lab.gen", rel / "grader/labs/05_swizzle/lab.toml", out],
                               capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(COURSE / "python")})
            self.assertEqual(r.returncode, 0, r.stderr)
            generated = "".join(f.read_text() for f in sorted(out.rglob("*")) if f.is_file())
            self.assertEqual(want["what"] in generated, expect, rel.name)
            # The release's judge knows its variant: it grades k whatever line the file carries.
            registered = (out / "lab05_variants.cpp").read_text()
            self.assertEqual(f", nullptr, 0, {k});" in registered, expect, registered[-300:])
            self.assertEqual(", nullptr, 0, -1);" in registered, not expect, registered[-300:])

    def test_a_per_student_release_gives_no_answer(self):
        check = HERE / "check_no_answers.py"
        rel = self.rel(self.students[0])
        r = subprocess.run([sys.executable, check, rel], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # The failing case: the variant's own answer (its value formula), planted in a copy's handout.
        k = banklab_variants.choose("05", self.students[0], SEED, banklab_variants.read(LAB).count)
        formula = banklab_variants.answers(LAB, k)["kBytesSavedOverPadding"]["value"]
        self.assertNotEqual(formula, LAB.answers()["kBytesSavedOverPadding"]["value"])
        bad = self.tmp / "planted"
        shutil.copytree(rel, bad)
        with open(bad / "labs/05_swizzle/README.md", "a") as f:
            f.write(f"\nThe tile saves {formula} bytes.\n")
        r = subprocess.run([sys.executable, check, bad], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn(f"variant {k}, kBytesSavedOverPadding (its value formula)", r.stdout)
        self.assertNotIn(formula, r.stdout)
        # ... and its graded number, assigned to its constant (the base lab's differs).
        value = banklab_expr.evaluate(formula)
        self.assertNotEqual(value, banklab_expr.evaluate(LAB.answers()["kBytesSavedOverPadding"]["value"]))
        shutil.rmtree(bad)
        shutil.copytree(rel, bad)
        with open(bad / "labs/05_swizzle/README.md", "a") as f:
            f.write(f"\nkBytesSavedOverPadding = {value}\n")
        r = subprocess.run([sys.executable, check, bad], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("assigns lab 05_swizzle, kBytesSavedOverPadding its graded value", r.stdout)

    def test_with_solutions_is_refused_without_a_student_and_marks_the_release(self):
        r = make(self.tmp / "nosol", "--with-solutions")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--with-solutions (instructor only) needs --student ID or --variant K", r.stderr)
        self.assertFalse((self.tmp / "nosol").exists())
        r = make(self.tmp / "grading", "--grading", "--variant", "1")   # a grading image grades every variant
        self.assertEqual(r.returncode, 2)
        self.assertIn("give it no --student, --variant or --roster", r.stderr)
        # Without the model's banklab command: refused before anything is written, never a traceback.
        (self.tmp / "nocli").mkdir()
        (self.tmp / "nocli" / "kept.txt").write_text("an earlier release")
        r = make(self.tmp / "nocli", "--variant", "1", "--with-solutions", "--force",
                 env={"BANKLAB_CLI": str(self.tmp / "no-banklab-here")})
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--with-solutions needs the banklab command", r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        self.assertEqual(sorted(p.name for p in (self.tmp / "nocli").iterdir()), ["kept.txt"])
        r = make(self.tmp / "sol", "--variant", "1", "--with-solutions")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual((self.tmp / "sol/solutions/05_swizzle/kernel.cu").read_text(), banklab_variants.solution(LAB, 1))
        self.assertTrue((self.tmp / "sol/RELEASE").read_text().startswith("INSTRUCTOR COPY, NOT FOR STUDENTS"))
        self.assertTrue((self.tmp / "sol/NOT_FOR_STUDENTS").is_file())
        self.assertFalse((self.tmp / "plain/solutions").exists())

    def test_a_hostile_login_is_refused(self):
        for login in ("../escape", "a/b", "-rf", ".hidden", "x\x1by", ".."):
            self.assertIsNotNone(per_student.unsafe_login(login), login)
        for login in ("alice", "o'neil", "=cmd", "s123@uni"):
            self.assertIsNone(per_student.unsafe_login(login), login)
        roster = self.tmp / "hostile.csv"
        roster.write_text('Student,ID,SIS User ID,SIS Login ID,Section\n"A, B",1,s1,ok,A\n"C, D",2,s2,../../etc,A\n')
        r = make(self.tmp / "hostile", "--roster", roster, "--course-seed", SEED)
        self.assertEqual(r.returncode, 1)
        self.assertIn("'../../etc' cannot name a folder", r.stderr)
        self.assertFalse((self.tmp / "hostile").exists())
        self.assertFalse((self.tmp / "etc").exists())
        # The instructor's list neutralises a login a spreadsheet would run.
        per_student.write_roster_variants(self.tmp / "v.csv", [("=cmd", "05", 1), ("alice", "05", 2)])
        with open(self.tmp / "v.csv") as f:
            rows = list(csv.reader(f))
        self.assertEqual(rows[1], ["'=cmd", "05", "1"])
        self.assertEqual(rows[2], ["alice", "05", "2"])


def pl_problems(folder: Path, seeds) -> list[str]:
    """What is wrong with a PrairieLearn question folder: generate() gives a K outside the lab's
    variants, or the file editor's starting file kernel_vK.cu is missing or is another variant's."""
    ns = runpy.run_path(str(folder / "server.py"))
    p = []
    n = banklab_variants.read(LAB).count
    for seed in seeds:
        data = {"params": {}, "variant_seed": seed}
        ns["generate"](data)
        k = data["params"]["banklab_variant"]
        if not isinstance(k, int) or not 0 <= k < n or data["params"]["banklab_lab"] != "05":
            p.append(f"seed {seed}: variant {k!r}")
            continue
        start = folder / f"kernel_v{k}.cu"
        if not start.is_file() or start.read_text() != banklab_variants.stub(LAB, k):
            p.append(f"seed {seed}: kernel_v{k}.cu is not variant {k}'s stub")
    return p


class PrairieLearnQuestion(unittest.TestCase):
    def test_generate_gives_a_valid_variant_and_its_starting_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            q = Path(tmp) / "q"
            self.assertEqual(prairielearn.write_question(LAB, q, COURSE), banklab_variants.read(LAB).count)
            seeds = [0, 1, 7, 12345, "998877", 2**40 + 3]
            self.assertEqual(pl_problems(q, seeds), [])
            ks = set()
            for s in range(20):
                d = {"params": {}, "variant_seed": s}
                runpy.run_path(str(q / "server.py"))["generate"](d)
                ks.add(d["params"]["banklab_variant"])
            self.assertGreater(len(ks), 1, "every seed gives the same variant")
            # The failing case: a starting file of another variant.
            shutil.copy(q / "kernel_v2.cu", q / "kernel_v1.cu")
            self.assertTrue(any("kernel_v1.cu" in x for x in pl_problems(q, range(10))))

    def test_each_labs_question_has_its_own_uuid_and_the_image_given(self):
        labs = banklab_labs.find_labs(COURSE)
        with tempfile.TemporaryDirectory() as tmp:
            info = {}
            for n in ("04", "05"):
                prairielearn.write_question(labs[n], Path(tmp) / n, COURSE, "uni/banklab-grader")
                info[n] = json.loads((Path(tmp) / n / "info.json").read_text())
            prairielearn.write_question(labs["05"], Path(tmp) / "again", COURSE, "uni/banklab-grader")
            again = json.loads((Path(tmp) / "again" / "info.json").read_text())
        self.assertNotEqual(info["04"]["uuid"], info["05"]["uuid"])
        self.assertEqual(again["uuid"], info["05"]["uuid"])            # generated again: the same question
        self.assertEqual({i["externalGradingOptions"]["image"] for i in info.values()}, {"uni/banklab-grader"})
        kit = json.loads((COURSE / prairielearn.QUESTION / "info.json").read_text())
        self.assertNotIn(kit["uuid"], {i["uuid"] for i in info.values()})
        for argv in (["--lab", "05", tmp], ["--lab", "05", "--image", prairielearn.PLACEHOLDER_IMAGE, tmp]):
            with self.assertRaises(SystemExit):                        # no image, or the placeholder
                prairielearn.main(argv)

    def test_the_kits_server_py_holds_lab_05s_table(self):
        """The committed question (lab 05's) is what the generator writes; a stale table fails."""
        f = COURSE / prairielearn.QUESTION / "server.py"
        self.assertEqual(f.read_text(), prairielearn.server_py(f.read_text(), LAB))
        stale = f.read_text().replace("col = 7", "col = 8")
        self.assertNotEqual(stale, prairielearn.server_py(stale, LAB))


if __name__ == "__main__":
    unittest.main()
