"""The one kill-the-process-group step (banklab.grading.invocation.wait_or_kill_group),
which the judge's run (banklab.grading.judging.run_limited) and the unpacking process
(banklab.grading.archives.unpack_upload) both use: past the timeout no process of the group is
left, grandchildren included; before it, the child's output and status come back, and nothing
it left in its group runs on.

  cd python && python3 -m unittest tests.test_invocation -v
"""
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

from banklab.grading import judging
from banklab.grading.invocation import wait_or_kill_group


def alive(pid: int) -> bool:
    """Whether `pid` still runs (a zombie waiting for its new parent to reap it does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


# A child that starts two grandchildren (each writes its pid, then would write `late` after 3 s)
# and waits for them.
FAMILY = ('for n in 1 2; do (echo $BASHPID > "$0/grandchild$n"; sleep 3; touch "$0/late$n") & done; '
          'echo started; wait')


class WaitOrKillGroup(unittest.TestCase):
    def start(self, script: str, folder: str, **kw) -> subprocess.Popen:
        return subprocess.Popen(["bash", "-c", script, folder], stdin=subprocess.DEVNULL, start_new_session=True, **kw)

    def grandchildren(self, folder: Path) -> list[int]:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            files = [folder / f"grandchild{n}" for n in (1, 2)]
            if all(f.is_file() and f.read_text().strip() for f in files):
                return [int(f.read_text()) for f in files]
            time.sleep(0.05)
        self.fail(f"the grandchildren never started (no pid files in {folder})")

    def test_past_the_timeout_the_childs_grandchildren_are_gone(self):
        with tempfile.TemporaryDirectory() as d:
            p = self.start(FAMILY, d, stdout=subprocess.PIPE)
            pids = self.grandchildren(Path(d))           # they really ran
            self.assertTrue(all(alive(pid) for pid in pids), pids)
            out, killed = wait_or_kill_group(p, 0.5)
            self.assertTrue(killed)
            self.assertIsNone(out)
            self.assertEqual(p.returncode, -9)
            deadline = time.monotonic() + 5
            while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertEqual([pid for pid in pids if alive(pid)], [])
            time.sleep(3.5)                               # what they would have done after 3 s
            self.assertEqual(sorted(f.name for f in Path(d).glob("late*")), [])

    def test_before_the_timeout_the_output_and_status_come_back(self):
        with tempfile.TemporaryDirectory() as d:
            p = self.start('echo done; exit 3', d, stdout=subprocess.PIPE)
            out, killed = wait_or_kill_group(p, 30)
            self.assertFalse(killed)
            self.assertEqual((out, p.returncode), (b"done\n", 3))

    def test_a_child_that_ends_in_time_leaves_nothing_of_its_group_running(self):
        with tempfile.TemporaryDirectory() as d:
            # The grandchildren are sent to the background with their output away from the pipe,
            # so that the child's end is the end of the pipe: the helper returns in time.
            script = ('for n in 1 2; do (echo $BASHPID > "$0/grandchild$n"; sleep 3; touch "$0/late$n") '
                      '>/dev/null 2>&1 & done; while [ ! -s "$0/grandchild1" ] || [ ! -s "$0/grandchild2" ]; '
                      'do sleep 0.05; done; echo done')
            p = self.start(script, d, stdout=subprocess.PIPE)
            out, killed = wait_or_kill_group(p, 30)
            self.assertFalse(killed)
            self.assertEqual((out, p.returncode), (b"done\n", 0))
            pids = self.grandchildren(Path(d))           # they really ran
            deadline = time.monotonic() + 5
            while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertEqual([pid for pid in pids if alive(pid)], [])
            time.sleep(3.5)
            self.assertEqual(sorted(f.name for f in Path(d).glob("late*")), [])

    def test_the_judges_run_kills_the_group_at_its_limit(self):
        with tempfile.TemporaryDirectory() as d:
            t = time.monotonic()
            rc, note = judging.run_limited(["bash", "-c", FAMILY, d], 1.5, Path(d) / "log")
            self.assertLess(time.monotonic() - t, 3)
            self.assertIsNone(rc)
            self.assertIn("did not finish within 1.5 s", note)
            pids = self.grandchildren(Path(d))
            self.assertIn("started", (Path(d) / "log").read_text())
            time.sleep(3.5)
            self.assertEqual([pid for pid in pids if alive(pid)], [])
            self.assertEqual(sorted(f.name for f in Path(d).glob("late*")), [])


if __name__ == "__main__":
    unittest.main()
