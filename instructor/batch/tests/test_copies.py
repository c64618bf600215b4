"""The instructor's report of likely copies (issue 44; python/banklab/grading/copies.py): grade-class
writes OUT/copies.csv and a section of summary.md.

With the judge's test double (fake_judge.py: the files' first line makes them "solved") and lab 05's
real stub and solution, a class of six with a course seed: alice's solved file; carol's, alice's
re-laid out (no comments, other spaces and names, her own variant line): the pair is listed, with
Debian's sim_c; erin hands in the lab as written's file (no variant line) and frank another variant's
stub: both are listed as written for another variant. bob's distinct solution and dave's untouched
stub are in no pair (every student starts from the stub: its lines are left out; dave's own text is
and frank's too short to compare, and the report counts them), and nobody's own file is called another variant's.
Lab 04, whose work is one expression, has every file counted as too short, none in a pair. Without sim_c (or when it fails), the report says that
near-identical kernels were not looked for, and why.

  python3 -m unittest -v test_copies
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from banklab.grading import copies as bcopies
from banklab.lab import labs as banklab_labs
from banklab.lab import variants as banklab_variants
from batch_common import FAKE, GRADE_CLASS, ROOT, read_csv

LAB = "05"
L = banklab_labs.find_labs(ROOT)[LAB]
COUNT = banklab_variants.read(L).count
SOLVED = "// FAKE-JUDGE: solved\n"   # the test double's marker (a comment: sim_c never sees it)
STUDENTS = ("alice", "bob", "carol", "dave", "erin", "frank")


def course_seed() -> str:
    """A seed under which erin's variant is not 0 (her variant-0 file is then another variant's)."""
    return next(s for s in (f"copies-seed-{i}" for i in range(1000)) if banklab_variants.choose(LAB, "erin", s, COUNT))


def relaid(text: str, k: int) -> str:
    """`text` as a copier hands it in: comments gone, other indentation and names, variant k's line."""
    out = []
    for line in text.splitlines():
        if banklab_variants.MARKER_RE.match(line):
            out.append(banklab_variants.MARKER.format(lab=LAB, k=k, params=banklab_variants.read(L).describe(k)))
            continue
        code = line.split("//", 1)[0].rstrip()
        if code.strip():
            out.append(re.sub(r"^ +", lambda m: "\t" * (len(m.group(0)) // 2), code).replace("chunk", "piece"))
    return "\n".join(out) + "\n"


DISTINCT = """
BANKLAB_HD constexpr int tile_index(int row, int col) {
  const int lane_bank = (col + row) & (TILE_DIM - 1);
  const int base = row << 5;
  return base | lane_bank;
}
"""


class LikelyCopiesReport(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="banklab-copies-"))
        self.tmp.chmod(0o755)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def class_of_six(self, seed: str) -> Path:
        k = {s: banklab_variants.choose(LAB, s, seed, COUNT) for s in STUDENTS}
        solution = L.solution.read_text()
        alice = banklab_variants.stub(L, k["alice"], text=solution)          # alice's solved file, her variant's line
        stub_b = banklab_variants.stub(L, k["bob"])
        old = "BANKLAB_HD constexpr int tile_index(int row, int col) {\n  return row * TILE_DIM + col;\n}\n"
        self.assertIn(old, stub_b)
        files = {"alice": alice, "carol": relaid(alice, k["carol"]),
                 "bob": stub_b.replace(old, DISTINCT.lstrip()),   # a solution of his own
                 "dave": banklab_variants.stub(L, k["dave"]),                    # the untouched stub
                 "erin": solution,                                 # the lab as written's: no line
                 "frank": banklab_variants.stub(L, (k["frank"] + 1) % COUNT)}    # another variant's stub
        subs = self.tmp / "subs"
        for s, text in files.items():
            (subs / s).mkdir(parents=True)
            (subs / s / "kernel.cu").write_text(SOLVED + text)
        self.k = k
        return subs

    def grade(self, subs: Path, seed: str, env: dict | None = None) -> subprocess.CompletedProcess:
        p = subprocess.run([sys.executable, str(GRADE_CLASS), str(subs), "--out", str(self.tmp / "out"), "--lab", LAB,
                            "--judge", str(FAKE), "--course-seed", seed, "--timeout", "60"], capture_output=True,
                           text=True, timeout=300, env=env or dict(os.environ))
        self.assertNotIn("Traceback", p.stderr)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p

    @unittest.skipUnless(shutil.which("sim_c"), "Debian's similarity-tester (sim_c) is not installed here: "
                         "tools/setup-debian --all installs it")
    def test_another_variants_files_and_a_near_identical_pair_are_listed_distinct_solutions_are_not(self):
        seed = course_seed()
        self.grade(self.class_of_six(seed), seed)
        rows = read_csv(self.tmp / "out" / bcopies.CSV_NAME)
        other = {r["student"]: r["detail"] for r in rows if r["kind"] == "another variant"}
        self.assertEqual(set(other), {"erin", "frank"}, rows)
        self.assertIn("carries no `// banklab variant:` line", other["erin"])
        self.assertIn(f"its line names variant {(self.k['frank'] + 1) % COUNT}, graded as the student's variant "
                      f"{self.k['frank']}", other["frank"])
        pairs = {frozenset((r["student"], r["other"])): r["similarity"] for r in rows if r["kind"] == "near-identical"}
        self.assertIn(frozenset(("alice", "carol")), pairs, rows)
        self.assertGreaterEqual(int(pairs[frozenset(("alice", "carol"))].split()[0]), bcopies.SIMILAR_PERCENT)
        self.assertFalse([p for p in pairs if p & {"bob", "dave"}], rows)   # distinct work, the untouched stub
        self.assertFalse([r for r in rows if r["kind"] == "not compared"], rows)
        # dave's untouched stub and frank's other variant's stub add nothing of their own: counted as too
        # short; bob's own three lines (30 tokens) and the rest are compared
        self.assertEqual([r["detail"].split(" submission")[0] for r in rows if r["kind"] == "too short"], ["2 of 6"], rows)
        md = (self.tmp / "out" / "summary.md").read_text()
        self.assertIn("## Likely copies", md)
        self.assertIn("lab 05: alice and carol:", md)
        self.assertIn("lab 05: erin carries no", md)

    def test_without_sim_c_the_report_says_pairs_were_not_looked_for(self):
        seed = course_seed()
        subs = self.class_of_six(seed)
        bin_ = self.tmp / "bin"          # a PATH with python3 and env only: no sim_c
        bin_.mkdir()
        for tool in ("python3", "env"):
            (bin_ / tool).symlink_to(sys.executable if tool == "python3" else shutil.which(tool))
        self.grade(subs, seed, env=dict(os.environ, PATH=str(bin_)))
        rows = read_csv(self.tmp / "out" / bcopies.CSV_NAME)
        self.assertEqual([r["detail"] for r in rows if r["kind"] == "not compared"],
                         [f"near-identical kernels were not looked for: sim_c is not installed ({bcopies.SIM_HINT})"])
        self.assertFalse([r for r in rows if r["kind"] == "near-identical"])
        self.assertEqual({r["student"] for r in rows if r["kind"] == "another variant"}, {"erin", "frank"})
        self.assertIn("sim_c is not installed", (self.tmp / "out" / "summary.md").read_text())
        # ... and a sim_c that fails is said as such, never an empty list of pairs.
        handed = [bcopies.Handed(s, LAB, subs / s / "kernel.cu", self.k[s]) for s in STUDENTS]
        bcopies.report(self.tmp / "out", handed, ROOT, sim=shutil.which("false"))
        rows = read_csv(self.tmp / "out" / bcopies.CSV_NAME)
        self.assertEqual([r["detail"] for r in rows if r["kind"] == "not compared"],
                         ["near-identical kernels were not looked for: sim_c exited 1: "])
        # A run that read no submission (--rescore) keeps the last report and says nothing.
        kept = (self.tmp / "out" / bcopies.CSV_NAME).read_text()
        self.assertEqual(bcopies.report(self.tmp / "out", [], ROOT), "")
        self.assertEqual((self.tmp / "out" / bcopies.CSV_NAME).read_text(), kept)

    def test_a_lab_whose_work_is_one_expression_says_its_files_are_too_short_to_compare(self):
        # Lab 04's solution changes one line (an expression for a number): two students who hand in the
        # same right answer are not called copies; the row says how many files were left out and why.
        lab04 = banklab_labs.find_labs(ROOT)["04"]
        self.assertLess(bcopies.tokens(bcopies.own_text(lab04.solution.read_text(), bcopies.course_lines(lab04))),
                        bcopies.MIN_OWN_TOKENS)
        for s in ("ann", "ben"):
            (self.tmp / s).mkdir()
            (self.tmp / s / "kernel.cu").write_text(lab04.solution.read_text())
        handed = [bcopies.Handed(s, "04", self.tmp / s / "kernel.cu", None) for s in ("ann", "ben")]
        (self.tmp / "out").mkdir()
        md = bcopies.report(self.tmp / "out", handed, ROOT, sim=shutil.which("true"))
        rows = read_csv(self.tmp / "out" / bcopies.CSV_NAME)
        self.assertEqual([(r["kind"], r["detail"].split(" submission")[0]) for r in rows], [("too short", "2 of 2")], rows)
        self.assertIn(f"fewer than {bcopies.MIN_OWN_TOKENS} tokens of their own", md)
        # ... and lab 05's solution, whose own text is long, is compared (not counted as too short).
        self.assertGreaterEqual(bcopies.tokens(bcopies.own_text(L.solution.read_text(), bcopies.course_lines(L))),
                                bcopies.MIN_OWN_TOKENS)

    def test_names_are_printed_with_their_control_characters_escaped(self):
        self.assertEqual(bcopies.shown("mallory\x1b]2;owned\x07\r\u202e"), "mallory\\x1b]2;owned\\x07\\r\\u202e")
        self.assertEqual(bcopies.shown("Zoë Smith"), "Zoë Smith")


if __name__ == "__main__":
    unittest.main()
