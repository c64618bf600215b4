"""Grading against the student's own variant (issue 35 item 4; docs/dev/VARIANTS.md, "Grading
against the student's own variant"; python/banklab/grading/assigned.py).

With the judge's test double (fake_judge.py, which logs the --variant it was given): grade-class
gives each student's judge the variant of their login (a roster row with their export's id) or,
with no LMS, of their folder's name, and shows it in the gradebook and the feedback; a name match
only proposed, with a seed, is "not graded" (no number, exit 4) until confirmed, then graded; no
seed grades variant 0 and says so once; Gradescope passes the variant of submission_metadata.json's
sid (no submitter with a seed: not graded), PrairieLearn params.banklab_variant (out of range or
missing: not graded). With the real judge ($BANKLAB_JUDGE; lab 05, the CPU tier): two students of
different variants each earn the maximum with their own variant's solved file, and a classmate's
copied solved file earns less, with the judge's record naming it another student's variant.

  python3 -m unittest -v test_variants_grading
"""

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from banklab.lab import labs as banklab_labs   # noqa: E402
from banklab.grading import judging   # noqa: E402
from banklab.lab import variants as banklab_variants            # noqa: E402
from banklab.grading.platforms import GRADESCOPE_NOT_GRADED_FILE  # noqa: E402
from batch_common import FAKE, GRADE_CLASS, PLATFORM, ROOT, fake_slurm_env, read_csv  #  E402

LAB = "05"
COUNT = banklab_variants.read(banklab_labs.find_labs(ROOT)[LAB]).count
JUDGE = os.environ.get("BANKLAB_JUDGE")


def seed_parting(*ids: str) -> str:
    """A course seed under which the ids all have different variants of lab 05 (found, not assumed)."""
    for i in range(1000):
        seed = f"course-seed-{i}"
        if len({banklab_variants.choose(LAB, x, seed, COUNT) for x in ids}) == len(ids):
            return seed
    raise AssertionError("no seed parts these ids")


def judged(log: Path) -> dict[str, str | None]:
    """{sha256 of the graded file: the --variant its judge got} from FAKE_JUDGE_ENV_LOG."""
    if not log.is_file():
        return {}
    return {d["source_sha256"]: d["variant"] for d in map(json.loads, log.read_text().splitlines())}


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="banklab-variants-"))
        self.tmp.chmod(0o755)
        self.log = self.tmp / "judge.jsonl"

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def files(self, folder: str, names: dict[str, str]) -> Path:
        """A submissions folder: {relative path: text}."""
        subs = self.tmp / folder
        for rel, text in names.items():
            (subs / rel).parent.mkdir(parents=True, exist_ok=True)
            (subs / rel).write_text(text)
        return subs

    def grade(self, subs: Path, out: str, *args, seed_env: str | None = None, env: dict | None = None):
        """grade-class over `subs` with the test double; $BANKLAB_COURSE_SEED is `seed_env` (unset: None)."""
        env = dict(env or os.environ, FAKE_JUDGE_ENV_LOG=str(self.log))
        env.pop("BANKLAB_COURSE_SEED", None)
        if seed_env is not None:
            env["BANKLAB_COURSE_SEED"] = seed_env
        p = subprocess.run([sys.executable, str(GRADE_CLASS), str(subs), "--out", str(self.tmp / out), "--lab", LAB,
                            "--judge", str(FAKE), "--timeout", "60", *map(str, args)], capture_output=True, text=True,
                           timeout=300, env=env)
        self.assertNotIn("Traceback", p.stderr)
        return p

    @staticmethod
    def sha(path: Path) -> str:
        return judging.sha256_of(path)


class GradeClassGradesEachStudentsOwnVariant(Tmp):
    def test_folders_without_an_lms_are_graded_as_their_folder_names_variants(self):
        seed = seed_parting("alice", "bob")
        subs = self.files("subs", {"alice/kernel.cu": "// FAKE-JUDGE: solved alice\n",
                                   "Bob/kernel.cu": "// FAKE-JUDGE: solved bob\n"})
        p = self.grade(subs, "out", "--course-seed", seed)
        self.assertEqual(p.returncode, 0, p.stderr)
        got = judged(self.log)
        want = {"alice": banklab_variants.choose(LAB, "alice", seed, COUNT), "Bob": banklab_variants.choose(LAB, "bob", seed, COUNT)}
        self.assertNotEqual(want["alice"], want["Bob"])
        for st, k in want.items():
            with self.subTest(student=st):
                self.assertEqual(got[self.sha(subs / st / "kernel.cu")], str(k))   # the judge graded their own
                row = next(r for r in read_csv(self.tmp / "out" / "gradebook.csv") if r["student"] == st)
                self.assertEqual(row[f"lab{LAB} variant"], str(k))
                fb = (self.tmp / "out" / "feedback" / f"{st}.md").read_text()
                self.assertIn(f"Graded as lab {LAB} variant {k} (", fb)
        self.assertNotIn("variants were not used", (self.tmp / "out" / "summary.md").read_text())

    def test_the_seed_comes_from_the_environment_too_and_without_any_every_lab_is_variant_0_said_once(self):
        seed = seed_parting("alice", "bob")
        subs = self.files("subs", {"alice/kernel.cu": "// FAKE-JUDGE: solved alice\n",
                                   "bob/kernel.cu": "// FAKE-JUDGE: solved bob\n"})
        p = self.grade(subs, "env", seed_env=seed)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(set(judged(self.log).values()),
                         {str(banklab_variants.choose(LAB, s, seed, COUNT)) for s in ("alice", "bob")})
        self.log.unlink()
        p = self.grade(subs, "none")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(set(judged(self.log).values()), {"0"})
        self.assertEqual(p.stderr.count("variants were not used"), 1, p.stderr)
        self.assertIn("Variants were not used: no course seed", (self.tmp / "none" / "summary.md").read_text())
        self.assertEqual(json.loads((self.tmp / "none" / "summary.json").read_text())["variants"]["seed"], False)

    def test_the_login_of_the_roster_row_with_the_exports_id_draws_the_variant_not_the_name(self):
        # Canvas's download: the file names carry the squashed name and the Canvas ID; the roster row
        # with that ID gives the login (aadams), which the release used.
        seed = seed_parting("aadams", "adamsalice")
        subs = self.files("canvas", {"adamsalice_101_9001_kernel.cu": "// FAKE-JUDGE: solved\n"})
        roster = self.tmp / "roster.csv"
        roster.write_text("Student,ID,SIS User ID,SIS Login ID,Section\n\"Adams, Alice\",101,S101,aadams,A\n")
        p = self.grade(subs, "out", "--course-seed", seed, "--roster", roster)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(list(judged(self.log).values()), [str(banklab_variants.choose(LAB, "aadams", seed, COUNT))])
        # Without the roster the export holds an id and no login: not graded, with the fix.
        self.log.unlink()
        p = self.grade(subs, "noroster", "--course-seed", seed)
        self.assertEqual(p.returncode, 4, p.stderr)
        self.assertEqual(judged(self.log), {})                               # no judge ran
        self.assertIn("no login: pass --roster", p.stderr)

    def test_on_slurm_a_submission_known_not_gradable_is_never_sent_to_the_cluster(self):
        seed = seed_parting("carol", "adamsalice")
        subs = self.files("mixed", {"adamsalice_101_9001_kernel.cu": "// FAKE-JUDGE: solved\n",
                                    "carol/kernel.cu": "// FAKE-JUDGE: solved carol\n"})
        env = fake_slurm_env(self.tmp)
        p = self.grade(subs, "slurm", "--course-seed", seed, "--engine", "slurm", "--slurm-poll", "0.5", env=env)
        self.assertEqual(p.returncode, 4, p.stderr)
        self.assertIn("no login: pass --roster", p.stderr)                 # Canvas's id alone: not graded
        self.assertRegex(p.stdout, r"slurm: submitted job \d+: 1 submission\(s\)")   # carol's only
        self.assertEqual(list(judged(self.log).values()), [str(banklab_variants.choose(LAB, "carol", seed, COUNT))])
        self.assertEqual(int((self.tmp / "slurm-state" / "next-job").read_text()), 1001)   # one sbatch


class AnUnknownIdentityWithASeedIsNotGraded(Tmp):
    def test_a_proposed_identity_is_not_graded_until_confirmed_then_graded_as_its_login(self):
        seed = seed_parting("alice", "ali")
        subs = self.files("subs", {"ali/kernel.cu": "// FAKE-JUDGE: solved\n"})
        roster = self.tmp / "roster.csv"
        roster.write_text("Student,ID,SIS User ID,SIS Login ID,Section\n\"Li, Ali\",7,S7,ali,A\n")
        out = self.tmp / "out"
        # The folder's name equals the roster's login: only proposed. With a seed: not graded, exit 4.
        p = self.grade(subs, "out", "--course-seed", seed, "--roster", roster)
        self.assertEqual(p.returncode, 4, p.stderr)
        self.assertEqual(judged(self.log), {})
        book = read_csv(out / "gradebook.csv")[0]
        lab_col = next(c for c in book if c.startswith(f"lab{LAB} ("))
        self.assertEqual((book[lab_col], book[f"lab{LAB} complete"], book[f"lab{LAB} variant"]),
                         ("", "not graded", "unknown"))
        self.assertIn("only proposed", book["not judged"])
        self.assertIn("--identities out/identities.csv", book["not judged"])      # the folder by its name
        for kept in (book["not judged"], (out / "feedback" / "ali.md").read_text(),
                     (out / "results" / "ali" / f"lab{LAB}.json").read_text()):
            self.assertNotIn(str(self.tmp), kept)                 # never the instructor's absolute path
        why = read_csv(out / "not-graded.csv")[0]
        self.assertEqual((why["student"], why["status"]), ("ali", "not graded"))
        lms = read_csv(out / "lms.csv")
        self.assertEqual(lms[-1][f"banklab lab {LAB}"], "")                   # blank, never a 0
        # Confirmed: graded as the login's variant, exit 0.
        rows = read_csv(out / "identities.csv")
        for r in rows:
            r["confirm"] = "yes"
        with open(self.tmp / "ids.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        p = self.grade(subs, "out", "--course-seed", seed, "--roster", roster, "--identities", self.tmp / "ids.csv")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(list(judged(self.log).values()), [str(banklab_variants.choose(LAB, "ali", seed, COUNT))])
        self.assertEqual(read_csv(out / "gradebook.csv")[0][f"lab{LAB} variant"], str(banklab_variants.choose(LAB, "ali", seed, COUNT)))

    def test_without_a_seed_the_same_class_is_graded_as_variant_0(self):
        subs = self.files("subs", {"ali/kernel.cu": "// FAKE-JUDGE: solved\n"})
        roster = self.tmp / "roster.csv"
        roster.write_text("Student,ID,SIS User ID,SIS Login ID,Section\n\"Li, Ali\",7,S7,ali,A\n")
        p = self.grade(subs, "out", "--roster", roster)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(list(judged(self.log).values()), ["0"])


class PlatformsPassTheRightVariant(Tmp):
    def platform(self, platform: str, root: Path, *args):
        env = dict(os.environ, FAKE_JUDGE_ENV_LOG=str(self.log))
        env.pop("BANKLAB_COURSE_SEED", None)
        p = subprocess.run([sys.executable, str(PLATFORM), platform, "--root", str(root), "--lab", LAB,
                            "--judge", str(FAKE), *map(str, args)], capture_output=True, text=True, timeout=300,
                           env=env)
        self.assertNotIn("Traceback", p.stderr)
        f = root / "results" / "results.json"
        if platform == "gradescope" and not f.exists():     # not graded: no results.json, the run fails
            f = root / "results" / GRADESCOPE_NOT_GRADED_FILE
        return p, json.loads(f.read_text())

    def gradescope_root(self, name: str, users) -> Path:
        root = self.tmp / name
        (root / "submission").mkdir(parents=True)
        (root / "submission" / "kernel.cu").write_text(f"// FAKE-JUDGE: solved {name}\n")
        if users is not None:
            (root / "submission_metadata.json").write_text(json.dumps({"users": users}))
        return root

    def test_gradescope_grades_the_variant_of_the_submitters_sid_or_email(self):
        seed = seed_parting("s123", "carol")
        for name, users, want in (("sid", [{"sid": "S123", "email": "x@u.edu"}], "s123"),
                                  ("email", [{"sid": "", "email": "Carol@u.edu"}], "carol")):
            with self.subTest(by=name):
                p, d = self.platform("gradescope", self.gradescope_root(name, users), "--course-seed", seed)
                self.assertEqual(p.returncode, 0, p.stderr)
                k = banklab_variants.choose(LAB, want, seed, COUNT)
                self.assertEqual(judged(self.log)[self.sha(self.tmp / name / "submission" / "kernel.cu")], str(k))
                self.assertIn("score", d)
                self.assertIn(f"lab {LAB}: graded as variant {k}", d["output"])

    @unittest.skipUnless((ROOT / ".git").exists() and (ROOT / "solutions").is_dir(),
                         "not a git checkout of the course repository")
    def test_make_zip_puts_the_seed_in_the_zip_and_run_autograder_grades_the_submitters_variant(self):
        import zipfile
        seed = seed_parting("dana", "x")
        z = self.tmp / "autograder.zip"
        r = subprocess.run([sys.executable, str(ROOT / "instructor/platforms/gradescope/make-zip"), str(z), "--lab", LAB,
                            "--course-seed", seed, "--variant-id", "email"], capture_output=True, text=True, timeout=300,
                           env={k: v for k, v in os.environ.items() if k != "BANKLAB_COURSE_SEED"})
        self.assertEqual(r.returncode, 0, r.stderr)
        src = self.tmp / "source"
        zipfile.ZipFile(z).extractall(src)
        env_file = (src / "banklab.env").read_text()
        self.assertIn(f"BANKLAB_COURSE_SEED={seed}\n", env_file)
        self.assertIn("BANKLAB_VARIANT_ID=email\n", env_file)
        (src / "banklab.env").write_text(env_file.replace('BANKLAB_GRADE_ARGS=""', f'BANKLAB_GRADE_ARGS="--judge {FAKE}"'))
        root = self.gradescope_root("ag", [{"sid": "S9", "email": "Dana@u.edu"}])
        env = {k: v for k, v in os.environ.items() if k != "BANKLAB_COURSE_SEED"}
        r = subprocess.run(["bash", str(src / "run_autograder")], capture_output=True, text=True, timeout=300,
                           env=dict(env, AUTOGRADER_ROOT=str(root), BANKLAB_SOURCE=str(src),
                                    FAKE_JUDGE_ENV_LOG=str(self.log)))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(list(judged(self.log).values()), [str(banklab_variants.choose(LAB, "dana", seed, COUNT))])
        # Without a seed in the zip: variant 0, and it says so.
        (src / "banklab.env").write_text((src / "banklab.env").read_text().replace(f"BANKLAB_COURSE_SEED={seed}\n", ""))
        self.log.unlink()
        r = subprocess.run(["bash", str(src / "run_autograder")], capture_output=True, text=True, timeout=300,
                           env=dict(env, AUTOGRADER_ROOT=str(root), BANKLAB_SOURCE=str(src),
                                    FAKE_JUDGE_ENV_LOG=str(self.log)))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(list(judged(self.log).values()), ["0"])
        self.assertIn("variants were not used", r.stderr)

    def test_gradescope_with_a_seed_and_no_submitter_is_not_graded_no_score(self):
        seed = seed_parting("a", "b")
        p, d = self.platform("gradescope", self.gradescope_root("nobody", None), "--course-seed", seed)
        self.assertEqual(p.returncode, 4, p.stderr)
        self.assertNotIn("score", d)                                          # Gradescope shows no 0
        self.assertFalse((self.tmp / "nobody" / "results" / "results.json").exists())   # a failed run
        self.assertIn("cannot be known", d["output"])
        self.assertEqual(judged(self.log), {})

    def pl_root(self, name: str, params: dict | None) -> Path:
        root = self.tmp / name
        (root / "student").mkdir(parents=True)
        (root / "student" / "kernel.cu").write_text(f"// FAKE-JUDGE: solved {name}\n")
        if params is not None:
            (root / "data").mkdir()
            (root / "data" / "data.json").write_text(json.dumps({"params": params}))
        return root

    def test_prairielearn_grades_params_banklab_variant(self):
        k = COUNT - 1
        p, d = self.platform("prairielearn", self.pl_root("pl", {"banklab_lab": LAB, "banklab_variant": k}))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(list(judged(self.log).values()), [str(k)])
        self.assertTrue(d["gradable"])
        self.assertIn(f"(variant {k})", d["message"])

    def test_prairielearn_without_a_valid_variant_is_not_graded(self):
        for name, params in (("missing", {"banklab_lab": LAB}), ("range", {"banklab_variant": COUNT}),
                             ("text", {"banklab_variant": "1"}), ("nodata", None)):
            with self.subTest(params=name):
                p, d = self.platform("prairielearn", self.pl_root(name, params))
                self.assertEqual(p.returncode, 4, p.stderr)
                self.assertIs(d["gradable"], False)            # no score recorded, no attempt counted
                self.assertNotIn("score", d)
                self.assertIn("banklab_variant", d["message"])
        self.assertEqual(judged(self.log), {})

    def test_github_grades_the_variant_the_students_own_file_names(self):
        root = self.tmp / "repo"
        folder = banklab_labs.find_labs(ROOT)[LAB].folder
        src = root / "labs" / folder / "kernel.cu"
        src.parent.mkdir(parents=True)
        src.write_text(banklab_variants.MARKER.format(lab=LAB, k=2, params="p") + "\n// FAKE-JUDGE: solved\n")
        p = subprocess.run([sys.executable, str(PLATFORM), "github", "--root", str(root), "--lab", LAB,
                            "--judge", str(FAKE), "--out", str(self.tmp / "gh")], capture_output=True, text=True,
                           timeout=300, env=dict(os.environ, FAKE_JUDGE_ENV_LOG=str(self.log)))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(list(judged(self.log).values()), ["2"])


@unittest.skipUnless(JUDGE, "BANKLAB_JUDGE is not set: the real judge is not built")
@unittest.skipUnless((ROOT / "solutions").is_dir(), "no solutions/ (a student release)")
class ACopiedVariantEarnsLessWithTheRealJudge(unittest.TestCase):
    """Lab 05, the CPU tier: alice and bob (variants apart) each hand in their own variant's solved
    file and earn the maximum; carol, of bob's variant, hands in alice's solved file."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="banklab-variants-real-"))
        cls.tmp.chmod(0o755)
        cls.seed = seed_parting("alice", "bob")
        lab = banklab_labs.find_labs(ROOT)[LAB]
        cls.k = {s: banklab_variants.choose(LAB, s, cls.seed, COUNT) for s in ("alice", "bob", "carol")}
        if cls.k["carol"] == cls.k["alice"]:
            raise unittest.SkipTest("carol's variant is alice's under this seed")
        cls.solved = {s: banklab_variants.solution(lab, cls.k[s]) for s in ("alice", "bob")}
        subs = cls.tmp / "subs"
        for st, text in (("alice", cls.solved["alice"]), ("bob", cls.solved["bob"]), ("carol", cls.solved["alice"])):
            (subs / st).mkdir(parents=True)
            (subs / st / "kernel.cu").write_text(text)
        cls.out = cls.tmp / "out"
        cls.proc = subprocess.run([sys.executable, str(GRADE_CLASS), str(subs), "--out", str(cls.out), "--lab", LAB,
                                   "-j", "2", "--judge", JUDGE, "--course-seed", cls.seed],
                                  capture_output=True, text=True, timeout=900)
        cls.res = {r["student"]: r for r in map(lambda f: json.loads(f.read_text()),
                                                  (cls.out / "results").glob(f"*/lab{LAB}.json"))}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_the_run_grades_everyone(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr[-3000:])
        self.assertEqual(set(self.res), {"alice", "bob", "carol"})

    def test_each_own_variants_solved_file_earns_the_maximum_of_the_cpu_tier(self):
        for st in ("alice", "bob"):
            with self.subTest(student=st):
                r = self.res[st]
                self.assertEqual(r["variant"], self.k[st])
                self.assertEqual([v["test"] for v in r["verdicts"] if v["status"] == "failed"], [])
                cpu = sum(v["max_points"] for v in r["verdicts"] if v["tier"] == "cpu")
                self.assertGreater(r["points"], 0)
                self.assertAlmostEqual(r["points"], cpu, places=2)

    def test_a_classmates_copied_file_earns_less_and_is_named_another_students_variant(self):
        r = self.res["carol"]
        self.assertEqual(r["variant"], self.k["carol"])
        self.assertLess(r["points"], self.res["alice"]["points"])
        failed = {v["test"]: v["message"] for v in r["verdicts"] if v["status"] == "failed"}
        self.assertIn(f"Lab{LAB}.Variant", failed)
        self.assertIn(f"this file is lab {LAB}'s variant {self.k['alice']}", failed[f"Lab{LAB}.Variant"])
        self.assertIn("made for another student", failed[f"Lab{LAB}.Variant"])
        self.assertTrue(any(t.startswith(f"Lab{LAB}Predictions.") for t in failed), failed)   # its numbers are alice's
        fb = (self.out / "feedback" / "carol.md").read_text()
        self.assertIn("made for another student", fb)
        # ... and in the instructor's files: results.csv (the gradebook's long form) and copies.csv.
        row = next(r for r in read_csv(self.out / "results.csv") if r["student"] == "carol")
        self.assertIn(f"Lab{LAB}.Variant", row["failed_tests"].split(";"))
        copies = read_csv(self.out / "copies.csv")
        self.assertEqual([(r["student"], r["detail"]) for r in copies if r["kind"] == "another variant"],
                         [("carol", f"its line names variant {self.k['alice']}, graded as the student's variant "
                                    f"{self.k['carol']}")])
        if shutil.which("sim_c"):     # alice's file and carol's are one file: the pair is listed
            self.assertIn(("alice", "carol"), [(r["student"], r["other"]) for r in copies if r["kind"] == "near-identical"])


if __name__ == "__main__":
    unittest.main()
