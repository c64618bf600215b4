"""Issues 21 and 30: no way of grading runs a student's code unconfined.

One scenario matrix, every cell graded for real with the judge ($BANKLAB_JUDGE) on lab 00 (the
cheapest lab to build):

  who:       root, and a normal user (`nobody`, through setpriv; the current user when the test
             is not root, and then the root cells are skipped)
  sandbox:   bubblewrap available, and unavailable (BANKLAB_BWRAP=/bin/false)
  runner:    the commands CTest runs for a lab (cmake/BanklabLab.cmake: `banklab-judge build`,
             then `banklab-judge test` per test), `grade-class -j 2`, and both platform adapters
             through their entry points (gradescope/run_autograder, prairielearn/run) on a fake
             root, with a copy of the course as the platform's course folder

Every runner is started as the session leader of a pseudo-terminal, its controlling terminal
(a TA's shell), and afterwards nothing waits in that terminal's input.

Cases (grader/selftest/cheats/, each on lab 00's stub; the classmates hand in lab 00's solution):

  daemon_rewrites_grades_and_classmates.cu   a daemon that outlives the judge, rewrites every
      results.json / OUT/results / verdict file it can find into full marks and a classmate's
      kernel.cu into a file that cannot compile. Its payload must have run (its line in the probe's
      log); DELAY_S seconds after the runner returned, no grade and no classmate's file has changed,
      it has no full score, and each classmate (graded after it by `grade-class -j 2`) passes every
      CPU test. Appended to the same file (one build for the three, issue 30's cheats):
  pushes_a_command_into_the_terminal.cu   TIOCSTI into /dev/tty and every terminal descriptor: its
      line in the probe's log says every push failed, and nothing waits in the runner's terminal.
  reads_what_its_ancestors_name.cu   reads every file the command lines of the processes it sees
      name (the runner's --out, --course, --root, the judge...): its line in the probe's log says it
      read 0 files.
  incbin_etc_shadow.cu    `.incbin "/etc/shadow"`: the build fails on the assembler's error about
      /etc/shadow (the proof that the directive was reached), and no line of /etc/shadow is in any
      file the runner wrote (results.json, feedback, logs).

Where the judge confines (bubblewrap: as root with no user namespace needed, as a normal user
with one) every cell above must hold. Without bubblewrap (root or not: issue 30 removed the
uid mode, a jail made by hand) every runner gets a clear refusal instead: the judge's build exits
non-zero saying what to install and writes no answers, grade-class says so once and exits 3
before grading anything, and each adapter's results.json says that grading cannot run there
(no score at all, not a 0: nothing was graded). Where the judge confines but can make no cgroup per
step (a normal user on cgroup v1, or on v2 without a delegated cgroup: issue 45), grading that counts
refuses: grade-class and both adapters leave every lab NOT GRADED (exit 4; the judge's Build a fault
naming the fix; no probe log: no step of the file ran, its payload's line never written), while the
CTest commands (a student's own build) run the file with per-process limits and say so. Run as a
test (label cpu):
`ctest -R NoWayOfGrading`.

WhereTheJudgeConfinesNothingNoGraderGrades checks the callers' side alone with the test double
of the judge (instructor/batch/tests/fake_judge.py): the refusals, and that no grader hands
BANKLAB_ALLOW_UNCONFINED to the judge.
"""

import csv
import hashlib
import json
import os
import pty
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
from banklab.files import load_file   # noqa: E402
mz = load_file(ROOT / "grader" / "selftest" / "materialize.py")
from banklab.grading import points as bpt   # noqa: E402
from banklab.grading import invocation   # noqa: E402
from banklab.grading.platforms import GRADESCOPE_NOT_GRADED_FILE  # noqa: E402
from banklab.grading import status as bs  # noqa: E402
_terminal = load_file(ROOT / "grader" / "tests" / "test_terminal.py")
make_controlling_terminal, waiting_input = _terminal.make_controlling_terminal, _terminal.waiting_input

LAB, FOLDER = "00", "00_bank_mapping"
CHEATS = ROOT / "grader" / "selftest" / "cheats"
DAEMON = CHEATS / "daemon_rewrites_grades_and_classmates.cu"
# Issue 30's cheats, appended to the daemon's file: their payloads and what each must say it got.
ALSO = {CHEATS / "pushes_a_command_into_the_terminal.cu": ("BANKLAB-PAYLOAD-TIOCSTI ran: ", r"TIOCSTI failed"),
        CHEATS / "reads_what_its_ancestors_name.cu": ("BANKLAB-PAYLOAD-READS-ANCESTORS ran: ", r", 0 files read$")}
PUSHED = "tiocsti-ran"       # what the pushed command line holds (the probe never prints it)
INCBIN = CHEATS / "incbin_etc_shadow.cu"
PAYLOAD = "BANKLAB-PAYLOAD-RESULTS-DAEMON"
DELAY_S = 3.0
# What the judge says when grading that counts finds no cgroup per step (grader/judge/main.cpp).
STEP_LIMITS_REFUSAL = "the judge can make no cgroup per step here"
NOBODY = 65534
JUDGE = os.environ.get("BANKLAB_JUDGE", "")
IS_ROOT = os.geteuid() == 0


def shadow_lines() -> list[str]:
    """The lines of this machine's /etc/shadow (root can read them), else a pattern's stand-in."""
    try:
        return [l for l in Path("/etc/shadow").read_text().splitlines() if l.count(":") >= 8]
    except OSError:
        return []


SHADOW = shadow_lines()
SHADOW_RE = re.compile(r"\broot:[^:\s]*:\d+:\d*:\d*:\d*:")


def leaked(text: str) -> list[str]:
    found = [l for l in SHADOW if l in text]
    return found or SHADOW_RE.findall(text)


def tree_text(d: Path) -> str:
    """Every file below d, as text (what a student or an instructor could be shown)."""
    out = []
    for p in sorted(d.rglob("*")):
        if p.is_file() and not p.is_symlink():
            out.append(f"==> {p}\n" + p.read_bytes().decode("utf-8", "replace"))
    return "\n".join(out)


def payload_ran(log: Path, where: str) -> bool:
    """Whether the daemon's payload line is in the probe's log (printed, as proof, with where)."""
    line = next((l for l in log.read_text(errors="replace").splitlines() if PAYLOAD in l), "") if log.is_file() else ""
    if line:
        print(f"    {where}: {line.strip()}", flush=True)
    return bool(line)


def also_failed(log: Path, where: str) -> list[str]:
    """What is wrong with the payload lines of the cheats appended to the daemon's (ALSO): each
    must be in the probe's log (it ran) and say it got nothing. [] when all hold (printed)."""
    text = log.read_text(errors="replace") if log.is_file() else ""
    wrong = []
    for case, (payload, nothing) in ALSO.items():
        line = next((l for l in text.splitlines() if payload in l), "")
        if not line:
            wrong.append(f"{case.name}: its payload never ran (no {payload!r} in {log})")
        elif not re.search(nothing, line.strip()):
            wrong.append(f"{case.name}: {line.strip()}")
        else:
            print(f"    {where}: {line.strip()[:160]}", flush=True)
    return wrong


def snapshot(paths) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths if p.is_file()}


class Cell:
    """One (who, sandbox) cell: how to run a command there, and what the judge says it can do."""

    def __init__(self, who: str, bwrap: bool, base: Path):
        self.who, self.bwrap = who, bwrap
        self.name = f"{who}-{'bwrap' if bwrap else 'no-bwrap'}"
        self.dir = base / self.name
        self.dir.mkdir()
        if who == "user" and IS_ROOT:
            os.chown(self.dir, NOBODY, NOBODY)
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.dir), "LANG": "C.UTF-8",
                    "PYTHONDONTWRITEBYTECODE": "1"}
        self.terminal_input = ""      # what waits in the runners' terminal after each returned
        if not bwrap:
            self.env["BANKLAB_BWRAP"] = "/bin/false"
        # The course the adapters and grade-class read (labs, descriptions, points): a copy of its
        # own, which a root adapter makes root's alone, as on the platforms.
        self.course = self.dir / "course"
        shutil.copytree(ROOT / "labs" / FOLDER, self.course / "labs" / FOLDER)
        shutil.copytree(ROOT / "grader" / "points", self.course / "grader" / "points")
        for d in ("instructor/platforms", "instructor/batch", "python"):   # the entry points run the course's own tools
            shutil.copytree(ROOT / d, self.course / d,
                            ignore=shutil.ignore_patterns("tests", "__pycache__", "*.pyc"))
        # The model's op table, which the description's one validator reads (banklab.lab.model_table).
        # and the cleaning rule of a student's text, which banklab.grading.cleantext reads.
        for f in ("common/data/ops.toml", "grader/judge/clean_text.toml"):
            (self.course / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / f, self.course / f)
        for p in [self.course] + list(self.course.rglob("*")):
            if p.is_dir():
                os.chmod(p, 0o755)
            if who == "user" and IS_ROOT:
                os.chown(p, NOBODY, NOBODY)

    def prefix(self) -> list[str]:
        if self.who == "user" and IS_ROOT:
            return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
        return []

    def run(self, cmd: list[str], timeout: float = 600) -> subprocess.CompletedProcess:
        """cmd as the session leader of a pseudo-terminal (its controlling terminal and stdin, the
        cell's user's, as a TA's shell gives its commands); what then waits in the terminal's input
        is added to terminal_input."""
        master, slave = pty.openpty()
        try:
            if self.who == "user" and IS_ROOT:
                os.fchown(slave, NOBODY, NOBODY)
            r = subprocess.run(self.prefix() + [str(c) for c in cmd], env=self.env, cwd=self.dir, text=True,
                               capture_output=True, timeout=timeout, stdin=slave, preexec_fn=make_controlling_terminal)
            self.terminal_input += waiting_input(slave)
        finally:
            os.close(slave)
            os.close(master)
        return r

    def mkdir(self, *parts) -> Path:
        d = self.dir.joinpath(*parts)
        d.mkdir(parents=True, exist_ok=True)
        if self.who == "user" and IS_ROOT:
            for p in [d] + list(d.parents):
                if p == self.dir:
                    break
                os.chown(p, NOBODY, NOBODY)
        return d

    def write(self, path: Path, text: str) -> Path:
        self.mkdir(*path.parent.relative_to(self.dir).parts)
        path.write_text(text)
        if self.who == "user" and IS_ROOT:
            os.chown(path, NOBODY, NOBODY)
        return path


def why_not() -> str:
    if not JUDGE or not Path(JUDGE).is_file():
        return "no judge: set BANKLAB_JUDGE (CTest does)"
    if IS_ROOT and shutil.which("setpriv") is None:
        return "setpriv (util-linux) not found"
    return ""


WHY = why_not()


@unittest.skipIf(WHY, WHY)
class NoWayOfGradingRunsAStudentsCodeUnconfined(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base = Path(tempfile.mkdtemp(prefix="banklab-confinement-"))
        os.chmod(cls.base, 0o755)
        lab_dir = str(ROOT / "labs" / FOLDER)
        cls.files = {"daemon": mz.materialize(mz.load_case(str(DAEMON)), lab_dir) + "".join(
                         "\n" + case.read_text() for case in ALSO),
                     "incbin": mz.materialize(mz.load_case(str(INCBIN)), lab_dir),
                     "solution": (ROOT / "solutions" / FOLDER / "kernel.cu").read_text()}
        tests = invocation.list_tests(Path(JUDGE), LAB)
        cls.cpu_tests = [t for t, tier in tests if tier == "cpu"]
        cls.table = bpt.load_points(ROOT, LAB)
        alloc = cls.table.allocate(t for t, _ in tests)
        cls.cpu_points = sum(alloc[t] for t in cls.cpu_tests)
        cls.total_points = sum(alloc.values())
        cls.user_why = cls._user_cannot_read() if IS_ROOT else ""

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.base, ignore_errors=True)

    @classmethod
    def _user_cannot_read(cls) -> str:
        """`nobody` must reach the judge, the course it was built from and these tools."""
        need = [JUDGE, ROOT / "common" / "include", ROOT / "instructor" / "batch" / "grade-class"]
        r = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--", "sh", "-c",
                            " && ".join(f"test -r '{p}'" for p in need)], capture_output=True)
        return "" if r.returncode == 0 else f"user nobody cannot read the judge or the course here ({', '.join(map(str, need))})"

    # ---- the matrix -------------------------------------------------------------------------

    def test_root_with_bubblewrap(self):
        self._cell("root", True)

    def test_root_without_bubblewrap(self):
        self._cell("root", False)

    def test_user_with_bubblewrap(self):
        self._cell("user", True)

    def test_user_without_bubblewrap(self):
        self._cell("user", False)

    def _cell(self, who: str, bwrap: bool):
        if who == "root" and not IS_ROOT:
            self.skipTest("not root")
        if who == "user" and self.user_why:
            self.skipTest(self.user_why)
        cell = Cell(who, bwrap, self.base)
        r = cell.run([JUDGE, "sandbox"], timeout=120)
        conf = invocation.parse_sandbox(r.returncode, r.stdout + r.stderr)
        print(f"\n[{cell.name}] banklab-judge sandbox: {conf.line}", flush=True)
        expect = "bwrap" if bwrap else "none"
        with self.subTest(cell=cell.name, sandbox=expect):
            self.assertEqual(conf.mode, expect, f"{cell.name}: banklab-judge sandbox said {conf.line!r}")
        refused = expect == "none"          # what must happen, whatever this judge says of itself
        # no cgroup per step (issue 45): grading that counts refuses, a student's own build runs
        cell.no_step_limits = not refused and "no cgroup" in conf.line
        later = []            # (what, paths, snapshot): checked once more after DELAY_S
        for runner in (self._ctest, self._grade_class, self._gradescope, self._prairielearn):
            with self.subTest(cell=cell.name, runner=runner.__name__.strip("_")):
                t0 = time.monotonic()
                runner(cell, refused, later)
                print(f"[{cell.name}] {runner.__name__.strip('_')}: {time.monotonic() - t0:.1f} s", flush=True)
        time.sleep(DELAY_S)
        for what, paths, snap in later:
            with self.subTest(cell=cell.name, after_delay=what):
                self.assertEqual(snapshot(paths), snap, f"{what} changed after the runner returned")
        self.assertFalse(leaked(tree_text(cell.dir)), f"{cell.name}: a line of /etc/shadow in a file written")
        self.assertNotIn(PUSHED, cell.terminal_input, f"{cell.name}: a probe's command line waits in the runner's terminal")
        self.assertFalse(Path("/tmp/banklab-" + PUSHED).exists(), "a command line pushed by a probe ran")

    # ---- runners ------------------------------------------------------------------------------

    def _ctest(self, cell: Cell, refused: bool, later: list):
        """What `ctest --preset lab00` runs: labNN.build, then labNN.<Suite.Test> for each test."""
        for case in ("daemon", "incbin"):
            d = cell.mkdir("ctest", case)
            src = cell.write(d / "labs" / FOLDER / "kernel.cu", self.files[case])
            work, results = cell.mkdir("ctest", case, "judge", f"lab{LAB}"), cell.mkdir("ctest", case, "results")
            b = cell.run([JUDGE, "build", "--lab", LAB, "--source", src, "--work", work, "--results", results])
            out = b.stdout + b.stderr
            if refused:
                self.assertNotEqual(b.returncode, 0, out)
                self.assertIn("apt-get install bubblewrap", out)
                self.assertFalse((work / "answers.txt").exists())
                build = json.loads((results / f"lab{LAB}" / f"Lab{LAB}.Build.json").read_text())
                self.assertEqual(build["status"], "fault", "a refusal is the grader's, not the student's failure")
                continue
            if case == "incbin":
                self.assertNotEqual(b.returncode, 0, "the .incbin of /etc/shadow built:\n" + out[-3000:])
                self.assertIn("/etc/shadow", tree_text(results) + out, "the assembler's error is not shown")
                self.assertFalse(leaked(tree_text(d) + out), "a line of /etc/shadow in the build's output")
                continue
            self.assertEqual(b.returncode, 0, out[-3000:])
            self.assertTrue(payload_ran(work / "probe.log", f"{cell.name} ctest"), "the payload did not run")
            if cell.no_step_limits:          # a student's own build: per-process limits, and it says so
                self.assertIn("limited per process only", out)
            self.assertEqual(also_failed(work / "probe.log", f"{cell.name} ctest"), [])
            passed = [t for t in self.cpu_tests
                      if cell.run([JUDGE, "test", "--lab", LAB, "--work", work, "--test", t, "--results", results],
                                  timeout=120).returncode == 0]
            self.assertLess(len(passed), len(self.cpu_tests), "the stub with a daemon passed every CPU test")
            files = list(results.glob("*.json")) + [work / "answers.txt"]
            later.append((f"ctest {case}: the verdicts and answers", files, snapshot(files)))

    def _grade_class(self, cell: Cell, refused: bool, later: list):
        subs = cell.mkdir("class", "submissions")
        who = {"a_cheater": "daemon", "b_classmate": "solution", "c_classmate": "solution", "d_incbin": "incbin"}
        for student, f in who.items():
            cell.write(subs / student / "kernel.cu", self.files[f])
        out = cell.dir / "class" / "out"
        before = snapshot(subs.rglob("kernel.cu"))
        cmd = [sys.executable, ROOT / "instructor" / "batch" / "grade-class", subs, "--out", out, "--lab", LAB,
               "-j", "2", "--tier", "cpu", "--keep-work", "--judge", JUDGE, "--course", cell.course]
        r = cell.run(cmd)
        text = r.stdout + r.stderr
        if refused:
            self.assertEqual(r.returncode, 3, text)
            self.assertEqual(text.count("cannot confine"), 1, text)
            self.assertIn("apt-get install bubblewrap", text)
            self.assertFalse(list(out.glob("results/*/*.json")), "results written though nothing could be graded")
            return
        if cell.no_step_limits:
            self.assertEqual(r.returncode, bs.NOT_GRADED_EXIT, text[-3000:])
            for s in who:
                res = json.loads((out / "results" / s / f"lab{LAB}.json").read_text())
                self.assertIn(STEP_LIMITS_REFUSAL, json.dumps(res), f"{s}: not refused for want of step limits")
                self.assertFalse(list((out / "work" / s).rglob("probe.log")), f"{s}: a step of the file ran")
            with open(out / "not-graded.csv", newline="") as f:
                self.assertEqual({row["student"] for row in csv.DictReader(f)}, set(who))
            return
        self.assertEqual(r.returncode, 0, text[-3000:])
        res = {s: json.loads((out / "results" / s / f"lab{LAB}.json").read_text()) for s in who}
        probe_log = out / "work" / "a_cheater" / f"lab{LAB}" / "judge" / "probe.log"
        self.assertTrue(payload_ran(probe_log, f"{cell.name} grade-class"), "the daemon's payload did not run")
        self.assertEqual(also_failed(probe_log, f"{cell.name} grade-class"), [])
        for s in ("b_classmate", "c_classmate"):
            st = {v["test"]: v["status"] for v in res[s]["verdicts"]}
            self.assertTrue(all(st.get(t) == "passed" for t in self.cpu_tests), f"{s}: {st}")
        cheat = {v["test"]: v["status"] for v in res["a_cheater"]["verdicts"]}
        self.assertFalse(all(cheat.get(t) == "passed" for t in self.cpu_tests), "the daemon's stub passed every CPU test")
        build = next((v for v in res["d_incbin"]["verdicts"] if v["test"].endswith(".Build")), None)
        self.assertTrue(build and build["status"] == "failed", f"the .incbin of /etc/shadow built: {res['d_incbin']}")
        self.assertIn("/etc/shadow", build["message"], "the assembler's error is not shown")
        self.assertEqual(snapshot(subs.rglob("kernel.cu")), before, "a submission was rewritten")
        with open(out / "gradebook.csv", newline="") as f:
            rows = {row[0]: row for row in csv.reader(f)}
        self.assertIn("b_classmate", rows)
        files = list(out.glob("results/*/*.json")) + [out / "gradebook.csv", out / "lms.csv"] + list(subs.rglob("kernel.cu"))
        later.append(("grade-class: results, gradebook and submissions", files, snapshot(files)))

    def _platform(self, cell: Cell, refused: bool, later: list, platform: str, sub: str):
        for case in ("daemon", "incbin"):
            root = cell.mkdir(platform, case)
            cell.write(root / sub / "kernel.cu", self.files[case])
            # The platform's own entry point on a fake root: Gradescope's course in ROOT/source as
            # there; PrairieLearn's (/banklab there) is the cell's copy of the course.
            if platform == "gradescope":
                course = root / "source"
                shutil.copytree(cell.course, course)
                if cell.who == "user" and IS_ROOT:
                    for p in [course] + list(course.rglob("*")):
                        os.chown(p, NOBODY, NOBODY)
                env = [f"AUTOGRADER_ROOT={root}"]
                entry = course / "instructor" / "platforms" / "gradescope" / "run_autograder"
            else:
                cell.write(root / "data" / "data.json", json.dumps({"params": {"banklab_lab": LAB, "banklab_variant": 0}}))
                course = cell.course
                env = [f"PL_GRADE_ROOT={root}", f"BANKLAB_SOURCE={course}"]
                entry = course / "instructor" / "platforms" / "prairielearn" / "run"
            r = cell.run(["env"] + env + [f"BANKLAB_JUDGE={JUDGE}", f"BANKLAB_LAB={LAB}", "BANKLAB_GRADE_ARGS=--tier cpu",
                          "bash", entry])
            text = r.stdout + r.stderr
            rj = root / "results" / "results.json"
            if (refused or cell.no_step_limits) and platform == "gradescope":    # no results.json: the run failed
                self.assertFalse(rj.exists(), "a refusal on Gradescope writes no results.json (it would be a 0)")
                rj = root / "results" / GRADESCOPE_NOT_GRADED_FILE
            self.assertTrue(rj.is_file(), f"{platform} wrote no {rj.name} (exit {r.returncode}):\n{text[-3000:]}")
            d = json.loads(rj.read_text())
            if refused:
                self.assertEqual(r.returncode, 3, text)
                self.assertIn("apt-get install bubblewrap", json.dumps(d))
                self.assertNotIn("score", d, "a refusal is no grade, not a 0")
                self.assertEqual(d["tests"], [])
                self.assertFalse((root / "results" / "work" / f"lab{LAB}" / "judge" / "answers.txt").exists())
                if platform == "gradescope":
                    self.assertTrue(d["extra_data"]["banklab_refused"])
                else:
                    self.assertIs(d["gradable"], False)        # no score, the attempt not counted
                continue
            if cell.no_step_limits:       # not graded: the judge refused before any step of the file
                self.assertEqual(r.returncode, bs.NOT_GRADED_EXIT, text[-3000:])
                self.assertIn(STEP_LIMITS_REFUSAL, json.dumps(d))
                self.assertNotIn("score", d, "not graded is no grade, not a 0")
                if platform == "prairielearn":
                    self.assertIs(d["gradable"], False)
                self.assertFalse(list((root / "results").rglob("probe.log")), "a step of the file ran")
                continue
            self.assertEqual(r.returncode, 0, text[-3000:])
            if cell.who == "root":       # the adapter made its folders root's alone before grading
                for p in (root, root / "results"):
                    self.assertEqual(p.stat().st_mode & 0o077, 0, f"{p} is open to other users")
            if case == "incbin":
                self.assertIn("/etc/shadow", json.dumps(d), "the assembler's error is not shown")
                if platform == "prairielearn":
                    self.assertIs(d["gradable"], False)
                else:
                    self.assertEqual(d["score"], 0)
                continue
            log = root / "results" / "work" / f"lab{LAB}" / "judge" / "probe.log"
            self.assertTrue(log.is_file(), f"no probe log: {text[-3000:]}\n{json.dumps(d)[:3000]}")
            self.assertTrue(payload_ran(log, f"{cell.name} {platform}"), "the daemon's payload did not run")
            self.assertEqual(also_failed(log, f"{cell.name} {platform}"), [])
            if platform == "gradescope":
                self.assertLess(d["score"], sum(t["max_score"] for t in d["tests"]), d)
            else:
                self.assertIs(d["gradable"], True)
                self.assertLess(d["score"], 1, d)
            files = [rj] + list((root / "results").glob("lab*.json"))
            later.append((f"{platform} {case}: results.json", files, snapshot(files)))

    def _gradescope(self, cell: Cell, refused: bool, later: list):
        self._platform(cell, refused, later, "gradescope", "submission")

    def _prairielearn(self, cell: Cell, refused: bool, later: list):
        self._platform(cell, refused, later, "prairielearn", "student")


FAKE = ROOT / "instructor" / "batch" / "tests" / "fake_judge.py"


class WhereTheJudgeConfinesNothingNoGraderGrades(unittest.TestCase):
    """The callers' side alone, with the test double of the judge (no real judge needed):
    `sandbox` answers `no sandbox:` (FAKE_JUDGE_SANDBOX=none)."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="banklab-refusal-"))
        self.env = dict(os.environ, FAKE_JUDGE_SANDBOX="none", BANKLAB_ALLOW_UNCONFINED="1",
                        PYTHONDONTWRITEBYTECODE="1")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_the_first_word_after_sandbox_is_the_mode(self):
        cases = [(0, "sandbox: bwrap /usr/bin/bwrap, steps as uid 58011", "bwrap"),
                 (0, "sandbox: bwrap /usr/bin/bwrap as root (no user namespace needed), steps as uid 58011", "bwrap"),
                 (0, "sandbox: uid 58326 (leased for this judge)", "none"),    # an older judge's jail made by hand
                 (0, "sandbox: /usr/bin/bwrap (bubblewrap, steps run as user nobody)", "bwrap"),
                 (1, "no sandbox: bubblewrap (bwrap) is not installed", "none"),
                 (1, "sandbox: bwrap /usr/bin/bwrap", "none"),
                 (0, "sandbox: unshare", "none"),
                 (0, "", "none")]
        for rc, text, mode in cases:
            with self.subTest(text=text, rc=rc):
                self.assertEqual(invocation.parse_sandbox(rc, text).mode, mode)

    def test_grade_class_says_so_once_before_grading_anything(self):
        (self.tmp / "subs" / "alice").mkdir(parents=True)
        (self.tmp / "subs" / "alice" / "kernel.cu").write_text("// FAKE-JUDGE: solved")
        out = self.tmp / "out"
        r = subprocess.run([sys.executable, str(ROOT / "instructor" / "batch" / "grade-class"), str(self.tmp / "subs"),
                            "--out", str(out), "--lab", "05", "--judge", str(FAKE)],
                           env=self.env, capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertEqual(r.stderr.count("cannot confine"), 1, r.stderr)
        self.assertIn("apt-get install bubblewrap", r.stderr)
        self.assertFalse(list(out.glob("results/*/*.json")))

    def test_no_grader_passes_allow_unconfined_to_the_judge(self):
        env = dict(self.env, FAKE_JUDGE_FAIL_IF_ALLOWED="1")
        del env["FAKE_JUDGE_SANDBOX"]
        (self.tmp / "subs" / "alice").mkdir(parents=True)
        (self.tmp / "subs" / "alice" / "kernel.cu").write_text("// FAKE-JUDGE: solved")
        r = subprocess.run([sys.executable, str(ROOT / "instructor" / "batch" / "grade-class"), str(self.tmp / "subs"),
                            "--out", str(self.tmp / "out"), "--lab", "05", "--judge", str(FAKE)],
                           env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        d = json.loads((self.tmp / "out" / "results" / "alice" / "lab05.json").read_text())
        self.assertFalse(d["judge_note"], d["judge_note"])
        self.assertTrue(all(v["status"] == "passed" for v in d["verdicts"] if v["tier"] == "cpu"))
        root = self.tmp / "gs"
        (root / "submission").mkdir(parents=True)
        (root / "submission" / "kernel.cu").write_text("// FAKE-JUDGE: solved")
        r = subprocess.run([sys.executable, str(ROOT / "instructor" / "platforms" / "grade-platform"), "gradescope",
                            "--root", str(root), "--lab", "05", "--judge", str(FAKE)],
                           env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertGreater(json.loads((root / "results" / "results.json").read_text())["score"], 0)

    def test_each_platform_writes_that_grading_cannot_run_here(self):
        for platform, sub, check in (("gradescope", "submission", lambda d: d["extra_data"]["banklab_refused"]),
                                     ("prairielearn", "student", lambda d: d["gradable"] is False)):
            with self.subTest(platform):
                root = self.tmp / platform
                (root / sub).mkdir(parents=True)
                (root / sub / "kernel.cu").write_text("// FAKE-JUDGE: solved")
                r = subprocess.run([sys.executable, str(ROOT / "instructor" / "platforms" / "grade-platform"), platform,
                                    "--root", str(root), "--lab", "05", "--judge", str(FAKE)],
                                   env=self.env, capture_output=True, text=True, timeout=300)
                self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
                rj = root / "results" / "results.json"
                if platform == "gradescope":           # no results.json: the run shows as failed, not a 0
                    self.assertFalse(rj.exists())
                    rj = root / "results" / GRADESCOPE_NOT_GRADED_FILE
                d = json.loads(rj.read_text())
                self.assertTrue(check(d), d)
                self.assertNotIn("score", d, "a refusal is no grade, not a 0")
                self.assertEqual(d["tests"], [])
                self.assertIn("apt-get install bubblewrap", json.dumps(d))


if __name__ == "__main__":
    unittest.main(verbosity=2)
