#!/usr/bin/env python3
"""Issues 30 (family 6) and 45 (item 6): the limits hold for the whole submission wherever the
judge makes step cgroups: a root judge on cgroup v1 (a memory and a pids hierarchy, as this
project's CI and its development machine have) and on cgroup v2 (step cgroups beside the machine's
top-level ones), and a normal user's judge whose own cgroup v2 is delegated to it (what `systemd-run
--user --scope -p Delegate=yes` gives; here root delegates one by hand as the kernel's cgroup-v2
documentation says, chowning the directory, cgroup.procs, cgroup.subtree_control and
cgroup.threads); a normal user's judge without one says that its limits are per process.

Grading that counts needs those limits (issue 45): a judge given --require-step-limits (every grader
of others passes it: banklab.grading.judging) or --graded refuses to build where it can make no
cgroup per step: the lab's Build is a fault that names the fix (root, or systemd-run --user --scope
-p Delegate=yes), and no step of the file runs (its probe's marker is never written). The same
user's plain build (a student's own ctest) runs the file, with per-process limits, and says so.
Root's judge and the delegated one grade with the flag as without it (the forked children held at
the limit).

The cases are judge.Confinement's (test_confinement.py, real cheats appended to lab 05's stub):
forked children, memfds, /dev/shm and a /tmp flood, each held at the step's limit (the peak read
from memory.peak on v2, memory.max_usage_in_bytes on v1, in probe.log, within the limit and at
least what the forked children held), and the kernel's OOM kill of a forked child read from
memory.events (v2) or memory.oom_control (v1): "a process of it was ended at the limit".

Where the machine has neither (no cgroup v1 memory and pids hierarchies, no cgroup v2 with those
controllers), every test is skipped with the reason and the run exits 77 (CTest: skipped); the
delegated case needs cgroup v2 and is skipped on a v1 machine with its reason.

  test_step_limits.py --judge build/selftest/grader/banklab-judge --root .
  (on the GPU machine, cgroup v2: bench/experiments/cgroup_v2/device_cgroup_v2.sh)
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import test_confinement as tc  # noqa: E402  (the cases, the peak check and the judge runner)

NOBODY = 65534
LIMIT_TESTS = ("test_the_judge_names_its_mode", "test_dev_shm_holds_no_more_than_the_step_may",
               "test_memfd_pages_count_against_the_step", "test_tmp_is_sized_and_nothing_written_outlives_the_step",
               "test_forked_children_are_held_at_the_limit_and_the_oom_kill_is_read",
               "test_grading_that_counts_runs_here_at_the_limit")
# What a judge that refuses for want of step cgroups says (main.cpp's sandbox_refusal), and its fix.
REFUSAL = "the judge can make no cgroup per step here"
FIX = "systemd-run --user --scope -p Delegate=yes"
MARKER = "BANKLAB-STEP-LIMITS-PROBE-RAN"


def cgroup2_mount() -> str:
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            if right.split()[:1] == ["cgroup2"]:
                return left.split()[4]
    return ""


def v2_problem() -> str:
    """Why this machine gives no cgroup v2 memory controller ("" when it does)."""
    point = cgroup2_mount()
    if not point:
        return "no cgroup v2 is mounted here (a cgroup v1 machine)"
    try:
        with open(os.path.join(point, "cgroup.controllers")) as f:
            ctl = f.read().split()
    except OSError as e:
        return f"cgroup v2 at {point} cannot be read ({e})"
    if "memory" not in ctl or "pids" not in ctl:
        return f"cgroup v2 at {point} has no memory and pids controllers (cgroup.controllers: {' '.join(ctl) or 'none'})"
    return ""


def v1_problem() -> str:
    """Why a root judge has no cgroup v1 memory and pids hierarchies here ("" when it has)."""
    found = set()
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields = right.split()
            if fields[:1] == ["cgroup"] and len(fields) >= 3:
                found |= {"memory", "pids"} & set(fields[2].split(","))
    return "" if found == {"memory", "pids"} else "no cgroup v1 memory and pids hierarchies are mounted"


V2_PROBLEM = v2_problem()
# The version a root judge makes its step cgroups in: v2 where it has the controllers, else v1.
VERSION = 2 if not V2_PROBLEM else 1 if not v1_problem() else 0
PROBLEM = "" if VERSION else f"{V2_PROBLEM}; {v1_problem()}"
needs_cgroups = unittest.skipIf(not VERSION, f"no step cgroups here: {PROBLEM}")
needs_v2 = unittest.skipIf(bool(V2_PROBLEM), f"no cgroup v2 memory controller: {V2_PROBLEM}")


class OnStepCgroups(tc.Confinement):
    """The limit cases of judge.Confinement, the judge's step cgroups in the machine's version, and
    the OOM kill read."""
    MODE_WORDS = f"in v{VERSION} "

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        print(f"\n    {cls.__name__}: {cls.sandbox}", file=sys.stderr)

    def test_the_judge_names_its_mode(self):
        super().test_the_judge_names_its_mode()
        self.assertIn(self.MODE_WORDS, self.sandbox, f"the judge's step cgroups are not where the machine has them "
                                                     f"({self.MODE_WORDS.strip()})")

    def test_forked_children_are_held_at_the_limit_and_the_oom_kill_is_read(self):
        r, log = self.build("forked-limits", self.cheat("forked_processes_share_the_memory"))
        self.assert_ran(log, "BANKLAB-PAYLOAD-FORKED-MEMORY")
        self.assert_peak_within_the_limit(log)
        self.assert_peak_counts_the_children(log)
        # six children of 800 MiB each against the step's 1104 MiB: the kernel ends some of them
        self.assertIn("a process of it was ended at the limit", log, "memory.events' oom_kill was not read")

    def test_grading_that_counts_runs_here_at_the_limit(self):
        """Where step cgroups are made, --require-step-limits (grading that counts) refuses nothing:
        the forked children's step runs and is held at its limit."""
        work = os.path.join(self.tmp, "w-required")
        r = self.judge("build", "--lab", "05", "--source", self.cheat("forked_processes_share_the_memory"),
                       "--work", work, "--require-step-limits")
        self.assertNotIn(REFUSAL, r.stdout)
        with open(os.path.join(work, "probe.log")) as f:
            log = f.read()
        self.assert_ran(log, "BANKLAB-PAYLOAD-FORKED-MEMORY")
        self.assert_peak_within_the_limit(log)
        self.assert_peak_counts_the_children(log)


@needs_cgroups
class RootJudge(OnStepCgroups, unittest.TestCase):
    MODE = "bwrap"
    ROOT = True


@needs_v2
class NormalUserInADelegatedCgroup(OnStepCgroups, unittest.TestCase):
    """User nobody's judge started inside a cgroup delegated to nobody (by root, by hand, as
    systemd's Delegate=yes does): its steps get cgroups of their own beneath it."""
    MODE = "bwrap"
    MODE_WORDS = "(delegated to this user)"

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0 or not shutil.which("setpriv"):
            raise unittest.SkipTest("needs root (to delegate a cgroup to user nobody) and setpriv")
        point = cgroup2_mount()
        with open(os.path.join(point, "cgroup.subtree_control")) as f:
            top = f.read().split()
        if "memory" not in top or "pids" not in top:
            with open(os.path.join(point, "cgroup.subtree_control"), "w") as f:
                f.write("+memory +pids")
        cls.delegated = os.path.join(point, f"banklab-test-delegated-{os.getpid()}")
        os.mkdir(cls.delegated)
        for name in ("", "cgroup.procs", "cgroup.subtree_control", "cgroup.threads"):
            os.chown(os.path.join(cls.delegated, name), NOBODY, NOBODY)
        super().setUpClass()

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        for sub in sorted((os.path.join(d, x) for d, xs, _ in os.walk(cls.delegated) for x in xs),
                          key=lambda p: -p.count("/")):
            try:
                os.rmdir(sub)
            except OSError:
                pass
        try:
            os.rmdir(cls.delegated)
        except OSError as e:
            print(f"\n    could not remove {cls.delegated}: {e}", file=sys.stderr)

    @classmethod
    def command(cls, *args):
        # root puts this shell into the delegated cgroup (into the leaf where a judge before it moved
        # the cgroup's processes: where a shell of the scope then is), then becomes nobody (no PAM
        # session that could move it elsewhere)
        return ["sh", "-c", '{ echo $$ > "$0/banklab-callers/cgroup.procs" || echo $$ > "$0/cgroup.procs"; } '
                '2>/dev/null && exec "$@"', cls.delegated,
                "setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--", tc.ARGS.judge, *args]


@needs_cgroups
class NormalUserWithoutADelegatedCgroup(unittest.TestCase):
    def test_it_says_its_limits_are_per_process(self):
        if os.geteuid() != 0 or not shutil.which("setpriv"):
            self.skipTest("needs root (to run the judge as user nobody in root's own cgroup) and setpriv")
        r = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--",
                            tc.ARGS.judge, "sandbox"], capture_output=True, text=True, timeout=120, cwd="/")
        text = r.stdout + r.stderr
        print(f"\n    {text.strip()[:400]}", file=sys.stderr)
        if text.startswith("no sandbox"):
            self.skipTest("bubblewrap does not run for user nobody here: " + text.strip()[:300])
        self.assertIn("limited per process only", text)
        self.assertNotIn("delegated to this user", text)

    # Grading that counts refuses here; the student's own build runs (issue 45).
    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0 or not shutil.which("setpriv"):
            return
        cls.tmp = tempfile.mkdtemp(prefix="banklab-step-limits-")
        os.chmod(cls.tmp, 0o777)
        with open(os.path.join(tc.ARGS.root, "labs", "05_swizzle", "kernel.cu")) as f:
            stub = f.read()
        cls.marked = os.path.join(cls.tmp, "marked.cu")
        with open(cls.marked, "w") as f:  # the stub, its probe writing a marker where the judge keeps its output
            f.write(stub + "\n#include <cstdio>\nnamespace banklab_case {\nconst int kMarked = [] { "
                    f"std::fputs(\"{MARKER}\\n\", stderr); return 0; }}();\n}}\n")
        os.chmod(cls.marked, 0o644)

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "tmp", None):
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def as_nobody(self, *args):
        if os.geteuid() != 0 or not shutil.which("setpriv"):
            self.skipTest("needs root (to run the judge as user nobody in root's own cgroup) and setpriv")
        sandbox = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--",
                                  tc.ARGS.judge, "sandbox"], capture_output=True, text=True, timeout=120, cwd="/")
        if not sandbox.stdout.startswith("sandbox: bwrap") or "no cgroup" not in sandbox.stdout:
            self.skipTest("user nobody's judge is not one with bubblewrap and without a cgroup here: " +
                          (sandbox.stdout + sandbox.stderr).strip()[:300])
        return subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--",
                               tc.ARGS.judge, *args], capture_output=True, text=True, timeout=600, cwd=self.tmp,
                              env={k: v for k, v in os.environ.items() if k != "BANKLAB_ALLOW_UNCONFINED"})

    def work_text(self, work):
        out = []
        for d, _, files in os.walk(work):
            for n in files:
                with open(os.path.join(d, n), errors="replace") as f:
                    out.append(f.read())
        return "\n".join(out)

    def assert_refused_before_any_step(self, r, work, build):
        self.assertEqual(build["status"], "fault", build)
        self.assertIn(REFUSAL, build["message"])
        self.assertIn(FIX, build["message"], "the refusal names its fix")
        self.assertIn("run the grader as root", build["message"])
        for log in ("probe_build.log", "fatbin_build.log", "probe.log", "control.log", "answers.txt"):
            self.assertFalse(os.path.exists(os.path.join(work, log)), f"{log}: a step of the file ran")
        self.assertNotIn(MARKER, r.stdout + r.stderr + self.work_text(work), "the file's probe ran")

    def test_grading_that_counts_refuses_and_runs_no_step_of_the_file(self):
        work, out = os.path.join(self.tmp, "w-grade"), os.path.join(self.tmp, "grade.json")
        r = self.as_nobody("grade", "--lab", "05", "--source", self.marked, "--work", work, "--json", out,
                           "--tier", "cpu", "--require-step-limits")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(out) as f:
            grade = json.load(f)
        build = next(v for v in grade["verdicts"] if v["test"] == "Lab05.Build")
        self.assert_refused_before_any_step(r, work, build)
        self.assertIn("NOT GRADED", r.stdout)

    def test_graded_mode_refuses_too(self):
        work, results = os.path.join(self.tmp, "w-graded"), os.path.join(self.tmp, "results")
        r = self.as_nobody("build", "--lab", "05", "--source", self.marked, "--work", work, "--results", results,
                           "--graded")
        self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(os.path.join(results, "lab05", "Lab05.Build.json")) as f:
            self.assert_refused_before_any_step(r, work, json.load(f))

    def test_the_students_own_build_runs_with_per_process_limits_and_says_so(self):
        """The control: the same user, the same file, no --require-step-limits (a student's own
        ctest): the probe runs (its marker is written), the build passes and says its limits."""
        work = os.path.join(self.tmp, "w-own")
        r = self.as_nobody("build", "--lab", "05", "--source", self.marked, "--work", work)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("limited per process only", r.stdout)
        self.assertNotIn(REFUSAL, r.stdout)
        with open(os.path.join(work, "probe.log")) as f:
            log = f.read()
        self.assertIn(MARKER, log, "the student's own build did not run the file's probe")
        self.assertIn("limited per process only", log)


def load_tests(loader, tests, pattern):
    suite = unittest.TestSuite()
    for cls in (RootJudge, NormalUserInADelegatedCgroup):
        suite.addTests(cls(name) for name in LIMIT_TESTS)
    suite.addTests(loader.loadTestsFromTestCase(NormalUserWithoutADelegatedCgroup))
    return suite


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--judge", required=True)
    ap.add_argument("--root", required=True)
    tc.ARGS, rest = ap.parse_known_args()
    tc.ARGS.judge, tc.ARGS.root = os.path.abspath(tc.ARGS.judge), os.path.abspath(tc.ARGS.root)
    prog = unittest.main(argv=[sys.argv[0], "-v", *rest], exit=False)
    ok = prog.result.wasSuccessful()
    if ok and PROBLEM:
        print(f"SKIPPED (exit 77): {PROBLEM}")
        sys.exit(77)
    sys.exit(0 if ok else 1)
