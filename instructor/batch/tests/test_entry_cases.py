"""The checks of instructor/batch/entry_points.py (entry_cases.py): each fails a record that shows
the attack working and passes one that shows it stopped (records as the entry points make them).

  python3 python/banklab_run.py instructor/batch/tests/test_entry_cases.py
"""

import unittest
from pathlib import Path

from banklab.files import load_file

ec = load_file(Path(__file__).resolve().parents[1] / "entry_cases.py")
FAMILY = {f.name: f for f in ec.FAMILIES}


def rec(graded=True, build="failed", text="", probe="", secs=1.0, keep=None):
    return {"graded": graded, "build": build, "text": text, "probe": probe, "secs": secs, "keep": keep}


def check(family, **recs):
    return FAMILY[family].check(recs)[0]


class EachCheckFailsTheAttackAndPassesItsStop(unittest.TestCase):
    def whose(self, **change):
        recs = {"probe_says_bubblewraps_error": rec(text="your file's answers could not be read"),
                "compile_error_reads_as_bubblewraps": rec(text="your file does not compile"),
                "probe_past_its_file_size_limit": rec(text="your file's compiled probe is 65 MiB"),
                "comment_line_of_256_KiB": rec(build="passed")}
        recs.update(change)
        return check("whose fault", **recs)

    def test_whose_fault(self):
        self.assertTrue(self.whose())
        self.assertFalse(self.whose(probe_says_bubblewraps_error=rec(graded=False, build="fault")))
        self.assertFalse(self.whose(probe_past_its_file_size_limit=rec(text="not judged")))  # no cause named
        self.assertTrue(self.whose(compile_error_reads_as_bubblewraps=rec(build="", text="does not compile")))

    def test_never_crashes(self):
        self.assertTrue(check("never crashes", comment_line_of_256_KiB=rec(build="passed")))
        self.assertFalse(check("never crashes", comment_line_of_256_KiB=rec(build="passed", text="exit 139")))
        self.assertFalse(check("never crashes", comment_line_of_256_KiB=rec(graded=False, build="none")))

    def test_nothing_unescaped(self):
        case = "compile_error_with_terminal_sequences"
        self.assertTrue(check("nothing unescaped", **{case: rec(text="#error A \\x1b]52;c;Y3Vy")}))
        self.assertFalse(check("nothing unescaped", **{case: rec(text="\\x1b]52;c; and \x1b]2;owned\x07")}))
        self.assertFalse(check("nothing unescaped", **{case: rec(text="no quote of it at all")}))

    def test_bounded(self):
        case = "error_line_of_300000_characters"
        self.assertTrue(check("bounded text and time", **{case: rec(text="x" * 4000)}))
        self.assertFalse(check("bounded text and time", **{case: rec(text="x" * 300000)}))
        self.assertFalse(check("bounded text and time", **{case: rec(text="x" * 4000, secs=459.0)}))

    def test_no_caller_keys(self):
        case = "probe_looks_for_the_callers_key"
        nothing = "BANKLAB-PAYLOAD-KEYS ran: keyring -3: errno 1 keyring -4: errno 1 keyring -5: errno 1"
        self.assertTrue(check("no caller keys", **{case: rec(probe=nothing)}))
        self.assertFalse(check("no caller keys", **{case: rec(probe="BANKLAB-PAYLOAD-KEYS ran: FOUND " + ec.SECRET)}))
        self.assertFalse(check("no caller keys", **{case: rec(probe="")}))  # the payload never ran: no proof
        self.assertFalse(check("no caller keys", **{case: rec(probe=nothing, text="feedback: " + ec.SECRET)}))

    def test_kept_work(self):
        case = "probe_past_its_file_size_limit"
        self.assertTrue(check("kept work", **{case: rec(keep=(90000, "not kept: probe (68 MiB)", 0))}))
        self.assertFalse(check("kept work", **{case: rec(keep=(70 << 20, "", 0))}))
        self.assertFalse(check("kept work", **{case: rec(keep=(-1, "", 1))}))

    def test_limits_on_cgroups(self):
        case = "forked_processes_share_the_memory"
        line = "BANKLAB-CHEAT-FORKED-MEMORY {} of 6 children touched all 800 MiB and live, {} ended; = {} MiB held"
        self.assertTrue(check("limits on cgroups", **{case: rec(probe=line.format(1, 5, 801))}))
        self.assertFalse(check("limits on cgroups", **{case: rec(probe=line.format(6, 0, 4800))}))
        self.assertFalse(check("limits on cgroups", **{case: rec(probe=line.format(0, 0, 4111))}))

    def test_refused_for_want_of_step_limits(self):
        """A grading entry point where the judge has no cgroup per step: refused, not graded, and
        no step of the file ran; a grade that ran the file (its payload's line) fails the check."""
        refused = rec(graded=False, build="fault", text="NOT GRADED: " + ec.STEP_LIMITS_REFUSAL + " (...)")
        self.assertTrue(ec.refused_for_step_limits({"a": refused, "b": dict(refused, build="")})[0])
        ran = "BANKLAB-CHEAT-FORKED-MEMORY 0 of 6 children touched all 800 MiB and live; = 4111 MiB held"
        self.assertFalse(ec.refused_for_step_limits({"a": rec(build="passed", probe=ran)})[0])   # graded, ran
        self.assertFalse(ec.refused_for_step_limits({"a": dict(refused, probe=ran)})[0])          # refused too late
        self.assertFalse(ec.refused_for_step_limits({"a": dict(refused, text="NOT GRADED: no GPU")})[0])  # another fault
        self.assertFalse(ec.refused_for_step_limits({"a": dict(refused, build="failed")})[0])    # the student's failure


if __name__ == "__main__":
    unittest.main(verbosity=2)
