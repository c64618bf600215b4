#!/usr/bin/env python3
"""Issue 45, items 1 to 3 on the judge's side: a fault the student's file causes is the student's,
the judge never crashes or stalls on a file's long lines, and nothing of the student's text reaches
a terminal unescaped (grader/judge/whose_fault.cpp, diagnostics.cpp, clean_text.cpp).

  test_whose_fault.py --judge build/dev/grader/banklab-judge --root . [--ctest ctest]

Each attack of round 5 that made a student's own file "not graded" gets a grade here, a failed
LabNN.Build naming the cause: a probe that prints bubblewrap's own error line and exits 1; a file
whose compile error reads as bubblewrap's (#line plus a host-only bad asm); a probe linked past
its step's 64 MiB file-size limit. The control cases: a sandbox tool that really fails at a step
(a stand-in for bwrap, compiled here, that fails that step, in bubblewrap's words or a compiler's,
and runs the real bwrap for every other) is a fault, "not graded", found by the control the judge
runs before the student's file is touched (no step of the student's file runs: its probe's marker
is never written), or, where the tool breaks after that control, by the control run again on the
student's failure; a kept pass of the control is reused by the next judge, and not once stale or
another user's.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

ARGS = None
BWRAP_LINE = "bwrap: Can't mount proc on /newroot/proc: Device or resource busy"

# A stand-in for bubblewrap whose step fails as a broken sandbox does (SAYS, exit EXIT_CODE: by
# default bubblewrap's own words and exit 1) when its command line holds BROKEN_ARG, and runs the
# real bubblewrap otherwise (the judge's trial run included). With PASS_FIRST N, the first N such
# steps run (counted in the file COUNTER), the later ones fail: a machine that broke after the
# judge's control before the build. Compiled: the judge starts its sandbox tool from a descriptor.
BROKEN_BWRAP_C = r"""
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (strcmp(argv[i], BROKEN_ARG) == 0) {
      if (PASS_FIRST > 0) {
        int n = 0;
        FILE* f = fopen(COUNTER, "r");
        if (f) { if (fscanf(f, "%d", &n) != 1) n = 0; fclose(f); }
        f = fopen(COUNTER, "w");
        if (f) { fprintf(f, "%d\n", n + 1); fclose(f); }
        if (n < PASS_FIRST) break;
      }
      fputs(SAYS "\n", stderr);
      return EXIT_CODE;
    }
  argv[0] = REAL_BWRAP;
  execv(REAL_BWRAP, argv);
  return 127;
}
"""


def run(cmd, env=None, timeout=600):
    t0 = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout,
                       env=dict(os.environ, **(env or {})))
    return r.returncode, r.stdout, time.monotonic() - t0


class Case(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="banklab-whose-fault-")
        os.chmod(cls.tmp, 0o755)
        with open(os.path.join(ARGS.root, "labs", "05_swizzle", "kernel.cu")) as f:
            cls.stub = f.read()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def source(self, name, text):
        path = os.path.join(self.tmp, name + ".cu")
        with open(path, "wb") as f:
            f.write(text.encode() if isinstance(text, str) else text)
        return path

    def grade(self, name, text, env=None):
        """banklab-judge grade of `text` on the CPU tier: (stdout bytes, the Build record, seconds)."""
        src, out = self.source(name, text), os.path.join(self.tmp, name + ".json")
        rc, shown, secs = run([ARGS.judge, "grade", "--lab", "05", "--source", src, "--work",
                               os.path.join(self.tmp, name), "--json", out, "--tier", "cpu"], env)
        self.assertEqual(rc, 0, shown.decode(errors="replace"))
        with open(out, encoding="utf-8") as f:
            grade = json.load(f)
        build = next(v for v in grade["verdicts"] if v["test"] == "Lab05.Build")
        return shown, build, secs

    def assert_graded_failure(self, shown, build, *cause):
        """A grade: the build failed (never a fault, never NOT GRADED), its message naming the cause."""
        text = shown.decode(errors="replace")
        self.assertEqual(build["status"], "failed", build)
        self.assertNotIn("NOT GRADED", text)
        self.assertNotIn("not your file's fault", build["message"])
        for c in cause:
            self.assertIn(c, build["message"])
        self.assertNotIn(BWRAP_LINE, build["message"])  # the student's words are no verdict


class AFileCannotMakeItselfNotGraded(Case):
    def test_a_probe_that_prints_bubblewraps_error_and_exits_1_fails_its_build(self):
        shown, build, _ = self.grade("prints-bwrap", self.stub + (
            "\n#include <cstdio>\n#include <unistd.h>\nnamespace banklab_case {\n"
            "const int kSays = [] { std::fputs(\"" + BWRAP_LINE + "\\n\", stderr); std::fflush(stderr); _exit(1); "
            "return 0; }();\n}\n"))
        self.assert_graded_failure(shown, build, "your file's answers could not be read", "exit 1",
                                   "known-good file's probe the same way just now, and it ran")
        with open(os.path.join(self.tmp, "prints-bwrap", "probe.log")) as f:
            self.assertIn(BWRAP_LINE, f.read())  # it ran, and said bubblewrap's words

    def test_a_compile_error_that_reads_as_bubblewraps_fails_its_build(self):
        shown, build, _ = self.grade("line-directive", self.stub + (
            "\n#line 1 \"" + BWRAP_LINE + "\"\n#ifndef __CUDA_ARCH__\n"
            "void banklab_case_asm() { asm volatile(\"no_such_instruction_here\"); }\n#endif\n"))
        self.assert_graded_failure(shown, build, "your file does not compile", "#line directives",
                                   "compiled its own known-good file the same way just now, and it compiled")
        with open(os.path.join(self.tmp, "line-directive", "probe_build.log")) as f:
            self.assertTrue(f.read().startswith(BWRAP_LINE))  # the compiler's first line read as bubblewrap's

    def test_a_probe_past_its_file_size_limit_fails_its_build_with_its_size(self):
        shown, build, _ = self.grade("large-probe", self.stub + (
            "\n#ifndef __CUDA_ARCH__\n__attribute__((used)) char banklab_case_table[65 << 20] = {1};\n#endif\n"))
        self.assert_graded_failure(shown, build, "your file's compiled probe is 65 MiB",
                                   "more than the 64 MiB a probe may be")

    def test_a_compile_past_its_file_size_limit_fails_its_build_with_the_limit(self):
        shown, build, _ = self.grade("large-object", self.stub + (
            "\n#ifndef __CUDA_ARCH__\n__attribute__((used)) char banklab_case_table[300 << 20] = {1};\n#endif\n"))
        self.assert_graded_failure(shown, build, "your file does not compile", "File size limit exceeded",
                                   "reached the step's file-size limit (256 MiB)")

    def test_a_valid_file_still_builds(self):
        with open(os.path.join(ARGS.root, "solutions", "05_swizzle", "kernel.cu")) as f:
            shown, build, _ = self.grade("solution", f.read())
        self.assertEqual(build["status"], "passed", build)


class StandInSandbox(Case):
    """A stand-in for bubblewrap compiled here (BROKEN_BWRAP_C), and a stub whose probe writes a
    marker where the judge keeps what it printed (probe.log)."""

    MARKER = "BANKLAB-PROBE-MARKER-RAN"

    def broken_bwrap(self, name, broken_arg, says=BWRAP_LINE, exit_code=1, pass_first=0):
        # in a folder of its own: a tool's folder is part of what a kept control's pass holds for
        os.makedirs(os.path.join(self.tmp, "tools", name), mode=0o755)
        exe = os.path.join(self.tmp, "tools", name, "bwrap")
        real = os.path.realpath(shutil.which("bwrap"))
        defs = {"BROKEN_ARG": json.dumps(broken_arg), "REAL_BWRAP": json.dumps(real), "SAYS": json.dumps(says),
                "EXIT_CODE": str(exit_code), "PASS_FIRST": str(pass_first),
                "COUNTER": json.dumps(os.path.join(self.tmp, name + ".count"))}
        subprocess.run(["cc", "-O1", "-o", exe, *(f"-D{k}={v}" for k, v in defs.items()), "-x", "c", "-"],
                       input=BROKEN_BWRAP_C.encode(), check=True)
        os.chmod(self.tmp, 0o755)
        return exe

    def marked_stub(self):
        return self.stub + ("\n#include <cstdio>\nnamespace banklab_case {\nconst int kMarked = [] { "
                            f"std::fputs(\"{self.MARKER}\\n\", stderr); return 0; }}();\n}}\n")


@unittest.skipUnless(shutil.which("cc") and shutil.which("bwrap"), "needs cc and bubblewrap")
class ABrokenSandboxIsStillNotGraded(StandInSandbox):
    """A machine that cannot build: the judge's control (its own known-good file through the
    build's steps, before the student's file is touched, once per judge process) fails, so nothing
    of the student's runs and the lab is NOT GRADED, saying why; a machine that breaks after that
    control is caught by the control run again on the student's failure."""

    def assert_no_student_step_ran(self, name):
        work = os.path.join(self.tmp, name)
        for log in ("probe_build.log", "fatbin_build.log", "probe.log"):
            self.assertFalse(os.path.exists(os.path.join(work, log)), f"{log}: a step of the student's file ran")
        with open(os.path.join(work, "control.log")) as f:
            self.assertIn("control: ran", f.read())

    def test_a_sandbox_that_cannot_run_any_probe_is_a_fault_before_the_students_file(self):
        tool = self.broken_bwrap("bwrap-no-probe", "/in/probe")
        shown, build, _ = self.grade("broken-probe-run", self.marked_stub(), env={"BANKLAB_BWRAP": tool})
        self.assertEqual(build["status"], "fault", build)
        self.assertIn("the judge's own known-good file's probe failed its run just now, before your file was touched "
                      "(exit 1, as bubblewrap's own error", build["message"])
        self.assertIn("NOT GRADED", shown.decode(errors="replace"))
        self.assert_no_student_step_ran("broken-probe-run")

    def test_a_sandbox_that_cannot_run_any_device_compile_is_a_fault_before_the_students_file(self):
        tool = self.broken_bwrap("bwrap-no-fatbin", "-fatbin")
        shown, build, _ = self.grade("broken-compile", self.marked_stub(), env={"BANKLAB_BWRAP": tool})
        self.assertEqual(build["status"], "fault", build)
        self.assertIn("the judge's own known-good file failed its device code's compile just now, before your file "
                      "was touched", build["message"])
        self.assert_no_student_step_ran("broken-compile")

    def test_a_broken_compiler_in_no_sandboxs_words_is_a_fault_not_the_files_compile_error(self):
        # The compile fails as a missing tool of the machine does (exit 1, the compiler's own kind of
        # words, no "bwrap: "): a judge that runs the control only on a failure that reads as the
        # sandbox's graded this "your file does not compile". The control before the build fails.
        says = "nvcc fatal   : Could not open output file '/tmp/w/kernel.fatbin.module_id'"
        tool = self.broken_bwrap("bwrap-no-nvcc", "-fatbin", says=says)
        shown, build, _ = self.grade("broken-nvcc", self.marked_stub(), env={"BANKLAB_BWRAP": tool})
        self.assertEqual(build["status"], "fault", build)
        self.assertIn("failed its device code's compile just now, before your file was touched (exit 1: " + says,
                      build["message"])
        self.assertIn("Not judged: this is not your file's fault", build["message"])
        self.assertIn("NOT GRADED", shown.decode(errors="replace"))
        self.assert_no_student_step_ran("broken-nvcc")
        # the same file on a working machine: its probe runs, and writes the marker
        shown, build, _ = self.grade("marked", self.marked_stub())
        self.assertEqual(build["status"], "passed", build)
        with open(os.path.join(self.tmp, "marked", "probe.log")) as f:
            self.assertIn(self.MARKER, f.read())

    def test_a_sandbox_that_breaks_after_the_control_is_still_a_fault_by_the_control_again(self):
        tool = self.broken_bwrap("bwrap-breaks", "/in/probe", pass_first=1)  # the control's probe runs, later ones fail
        shown, build, _ = self.grade("breaks-later", self.stub, env={"BANKLAB_BWRAP": tool})
        self.assertEqual(build["status"], "fault", build)
        self.assertIn("known-good file's probe failed the same way", build["message"])
        with open(os.path.join(self.tmp, "bwrap-breaks.count")) as f:
            self.assertEqual(f.read().strip(), "3")  # the control before, the student's probe, the control again


@unittest.skipUnless(shutil.which("cc") and shutil.which("bwrap"), "needs cc and bubblewrap")
class TheControlsPassIsReusedOnlyWhileFresh(StandInSandbox):
    """A pass of the control is kept for the judge processes that follow while it provably holds
    (grader/judge/control_record.hpp): the same tools, steps and boot, at most 300 s old, the
    judge's user's own file. A tool of this test's own (the real bubblewrap behind a stand-in that
    breaks nothing) gives it a key no other test shares."""

    def control_log(self, name, tool):
        shown, build, _ = self.grade(name, self.stub, env={"BANKLAB_BWRAP": tool})
        self.assertEqual(build["status"], "passed", build)
        with open(os.path.join(self.tmp, name, "control.log")) as f:
            return f.read()

    def test_a_second_judge_reuses_the_pass_and_a_stale_or_foreign_one_is_run_again(self):
        tool = self.broken_bwrap("bwrap-fine", "--banklab-never-given")
        first = self.control_log("first", tool)
        self.assertIn("control: ran", first)
        record = first.split("its pass is kept in ")[1].split(" for 300 s")[0]
        second = self.control_log("second", tool)
        self.assertIn("control: reused, not run", second)
        self.assertIn(record, second)
        with open(record) as f:
            lines = f.read().splitlines()
        at = int(lines[2].split()[1])
        with open(record, "w") as f:  # written 1000 s earlier
            f.write("\n".join(lines[:2] + [f"at {at - 1000}"] + lines[3:]) + "\n")
        stale = self.control_log("stale", tool)
        self.assertIn("control: ran", stale)
        self.assertIn("was not reused: it is 10", stale)
        if os.geteuid() == 0:
            os.chown(record, 65534, 65534)
            foreign = self.control_log("foreign", tool)
            self.assertIn("control: ran", foreign)
            self.assertIn("was not reused: it belongs to uid 65534", foreign)


class LongLinesCostTheirLength(Case):
    """No recursive pattern over the student's text: a line of any length is read in its length."""

    def build(self, name, text):
        src = self.source(name, text)
        rc, shown, secs = run([ARGS.judge, "build", "--lab", "05", "--source", src, "--work",
                               os.path.join(self.tmp, name)])
        return rc, shown.decode(errors="replace"), secs

    def test_a_300000_character_error_line_fails_its_build_in_seconds(self):
        text = self.stub + "\n#error " + "x" * 300000 + "\n"
        rc, shown, secs = self.build("long-error", text)
        self.assertEqual(rc, 1, shown[:2000])
        self.assertIn("your file does not compile", shown)
        self.assertIn("more bytes] ...", shown)  # the quote is cut, and says so (clean_text.toml's marker)
        self.assertLess(len(shown), 16 << 10)
        self.assertLess(secs, 120)
        shown, build, secs = self.grade("long-error-graded", text)
        self.assert_graded_failure(shown, build, "your file does not compile", "more bytes] ...")
        self.assertLess(len(build["message"]), 8 << 10)
        self.assertLess(secs, 120)

    def test_a_300000_character_comment_line_builds(self):
        # (through `build`: `grade` also reads the file's `// banklab variant:` line, variants.cpp)
        rc, shown, secs = self.build("long-comment", self.stub + "\n//" + " " * 300000 + "\n")
        self.assertEqual(rc, 0, shown[:2000])
        self.assertLess(secs, 120)


class TerminalSequencesAreShownEscaped(Case):
    """A compile error line carrying OSC 52 (the clipboard), OSC 2 (the title) and an erase."""

    PAYLOAD = (b"#error A \x1b]52;c;Y3VybCAtZnNTTCBodHRwczovL2V4YW1wbGUuY29tIHwgc3VkbyBzaA==\x07 B "
               b"\x1b]2;banklab: every submission graded\x07 C \x1b[2K\r D \xe2\x80\xae E\n")

    def text(self):
        return self.stub.encode() + b"\n" + self.PAYLOAD

    def test_grade_prints_and_records_them_escaped(self):
        shown, build, _ = self.grade("osc", self.text())
        self.assertEqual(build["status"], "failed", build)
        for raw in (b"\x1b", b"\x07", b"\r", b"\xe2\x80\xae"):
            self.assertNotIn(raw, shown)
            self.assertNotIn(raw.decode(errors="replace"), build["message"])
        self.assertIn("\\x1b]52;c;", build["message"])  # quoted, visibly
        self.assertIn("\\u202e", build["message"])

    def test_answers_with_terminal_sequences_are_refused_and_shown_escaped(self):
        # The probe's answers are the student's words too: a lab named "\x1b]2;..." in the header
        # (a message quotes the lab the answers are for) is refused as a whole, and shown escaped.
        work = os.path.join(self.tmp, "osc-answers")
        rc, shown, _ = run([ARGS.judge, "build", "--lab", "05", "--source", self.source("stub", self.stub),
                            "--work", work])
        self.assertEqual(rc, 0, shown)
        with open(os.path.join(work, "answers.txt"), "wb") as f:
            f.write(b"banklab-answers 1 lab \x1b]2;owned\x07\x1b[2K\n")
        results = os.path.join(self.tmp, "osc-answers-results")
        rc, shown, _ = run([ARGS.judge, "test", "--lab", "05", "--work", work, "--test",
                            "Lab05Layout.TileIndexIsInBoundsAndOneToOne", "--results", results])
        self.assertEqual(rc, 1, shown)
        self.assertIn(b"the answers file holds bytes that are no text", shown)
        self.assertNotIn(b"\x1b", shown)
        with open(os.path.join(results, "lab05", "Lab05Layout.TileIndexIsInBoundsAndOneToOne.json"), "rb") as f:
            self.assertNotIn(b"\\u001b", f.read())

    def test_build_and_ctest_print_them_escaped(self):
        src = self.source("osc-ctest", self.text())
        rc, shown, _ = run([ARGS.judge, "build", "--lab", "05", "--source", src, "--work",
                            os.path.join(self.tmp, "osc-build")])
        self.assertEqual(rc, 1, shown)
        self.assertIn(b"\\x1b]2;banklab", shown)
        self.assertNotIn(b"\x1b", shown)
        if not ARGS.ctest:
            self.skipTest("no --ctest")
        # ctest --output-on-failure, as a student's lab05.build runs it (cmake/BanklabLab.cmake).
        tests = os.path.join(self.tmp, "ctest")
        os.makedirs(tests, exist_ok=True)
        with open(os.path.join(tests, "CTestTestfile.cmake"), "w") as f:
            f.write(f'add_test(lab05.build "{ARGS.judge}" build --lab 05 --source "{src}" --work '
                    f'"{os.path.join(self.tmp, "osc-ctest-work")}")\n')
        rc, shown, _ = run([ARGS.ctest, "--test-dir", tests, "--output-on-failure"])
        self.assertNotEqual(rc, 0, shown)
        self.assertIn(b"\\x1b]52;c;", shown)
        self.assertNotIn(b"\x1b", shown)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--judge", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--ctest", default="")
    ARGS, rest = ap.parse_known_args()
    ARGS.judge, ARGS.root = os.path.abspath(ARGS.judge), os.path.abspath(ARGS.root)
    unittest.main(argv=[sys.argv[0], "-v", *rest])
