"""README.md's table of what the points tables give three kernels of every lab is what
instructor/batch/points-outcomes computes with the real judge (issue 46: lab 05's row said 15 where
the judge's CPU tier gives its conflicted kernel 12.5). Course repository only (it grades the
solutions); needs BANKLAB_JUDGE.

  BANKLAB_JUDGE=build/dev/grader/banklab-judge python3 -m unittest -v test_points_table
"""

import os
import re
import subprocess
import sys
import unittest

from batch_common import HERE, ROOT  # noqa: E402

JUDGE = os.environ.get("BANKLAB_JUDGE", "")
ROW = re.compile(r"^\| \d\d \| .* of \d+ \|$", re.M)


@unittest.skipUnless(JUDGE, "BANKLAB_JUDGE is not set: the real judge is not built")
@unittest.skipUnless((ROOT / "solutions").is_dir(), "no solutions/ (a student release)")
class ReadmePointsTableIsPointsOutcomes(unittest.TestCase):
    def test_every_labs_row_is_the_one_points_outcomes_prints(self):
        p = subprocess.run([sys.executable, str(HERE.parent / "points-outcomes"), "--judge", JUDGE, "--readme-rows"],
                           capture_output=True, text=True, timeout=1500)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        printed = ROW.findall(p.stdout)
        readme = ROW.findall((ROOT / "README.md").read_text())
        self.assertEqual(len(printed), len({r.split("|")[1] for r in printed}), p.stdout)   # one row a lab
        self.assertEqual(readme, printed, "README.md's points table differs from points-outcomes --readme-rows: "
                                          "put the printed rows in the README")


if __name__ == "__main__":
    unittest.main(verbosity=2)
