"""A solution's README holds its answers only (issue 48 item 5): the solution's choices and
predictions and why, nothing copied from the lab's handout (labs/NN_name/README.md), which the
student has already. One check over every lab (the labs from banklab.lab.labs.find_labs): a
solution README may share at most MAX_SHARED - 1 lines with its handout, a line counting when it
has a letter or a digit (a code fence or a table rule is no copy). A fork of the handout (the
task, the hints, the commands to grade and measure) fails it; a README of answers passes.

  PYTHONPATH=python python3 python/tests/test_solution_readmes.py
"""
from __future__ import annotations

import re
import unittest
from pathlib import Path

from banklab.lab import labs as banklab_labs

ROOT = Path(__file__).resolve().parents[2]
#: Lines of its handout a solution README may not repeat: this many or more is a copied passage.
MAX_SHARED = 3


def content_lines(text: str) -> list[str]:
    """The lines that say something: stripped, with a letter or a digit."""
    return [s for s in (line.strip() for line in text.splitlines()) if re.search(r"[A-Za-z0-9]", s)]


def shared_lines(solution: str, handout: str) -> list[str]:
    """The lines of `solution` that its handout holds too, in the solution's order."""
    theirs = set(content_lines(handout))
    return [line for line in content_lines(solution) if line in theirs]


class SolutionReadmesHoldAnswersOnly(unittest.TestCase):
    def test_no_solution_readme_repeats_its_handout(self):
        labs = banklab_labs.find_labs(ROOT)
        if not (ROOT / "solutions").is_dir():
            self.skipTest("no solutions/ in this tree (a student release)")
        checked = 0
        for n, lab in sorted(labs.items()):
            readme = lab.solution_dir / "README.md"
            if not readme.is_file():
                continue
            with self.subTest(lab=n):
                same = shared_lines(readme.read_text(), lab.handout.read_text())
                self.assertLess(len(same), MAX_SHARED,
                                f"{readme.relative_to(ROOT)} repeats {len(same)} lines of "
                                f"{lab.handout.relative_to(ROOT)} (a solution README holds the answers and why, "
                                f"and links to the handout for the rest): {same[:5]}")
            checked += 1
        self.assertGreaterEqual(checked, len(labs) - 1, "solution READMEs not found")

    def test_the_check_fails_a_copied_passage_and_passes_answers(self):
        handout = ("# Lab 99: a lab\n\n## Your task\n\n1. Set `kPad` to the smallest padding.\n"
                   "2. Answer the questions in `namespace lab99::predict`.\n\n```\nctest -L lab99\n```\n")
        fork = "# Lab 99 solution\n\n" + handout + "\n## Solution notes\n\n- `kPad = 1`: one bank a row.\n"
        answers = ("# Lab 99 solution\n\n`kPad = 1`: row r starts in bank r, so a column is in 32 banks.\n\n"
                   "```\nctest -L lab99 shows it passing\n```\n")
        self.assertGreaterEqual(len(shared_lines(fork, handout)), MAX_SHARED)
        self.assertLess(len(shared_lines(answers, handout)), MAX_SHARED)
        self.assertEqual(shared_lines("```\n| --- |\n\n", handout), [])   # markup is no copy


if __name__ == "__main__":
    unittest.main()
