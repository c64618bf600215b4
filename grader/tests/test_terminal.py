#!/usr/bin/env python3
"""Issue 30, family 1: no step of a student's code reaches the terminal of whoever started the
grading. The cheat grader/selftest/cheats/pushes_a_command_into_the_terminal.cu (appended to lab
05's stub) opens /dev/tty and every inherited terminal descriptor and pushes a command line into
it with TIOCSTI; here the judge runs under a pseudo-terminal that is its controlling terminal (a
TA's shell), and after it returned nothing the probe pushed is waiting in the terminal's input or
was echoed on it. Where the judge runs the probe, its log must say the push failed (the payload
ran); where it cannot confine (BANKLAB_BWRAP=/bin/false as root or for someone else's file) it
refuses and nothing runs.

  test_terminal.py --judge build/selftest/grader/banklab-judge --root .
"""
import argparse
import fcntl
import os
import pty
import re
import shutil
import subprocess
import sys
import tempfile
import termios
import threading
import unittest

ARGS = None
NOBODY = 65534
PUSHED = "tiocsti-ran"  # what the pushed line holds; the probe never prints it
PAYLOAD = "BANKLAB-PAYLOAD-TIOCSTI ran: "
IS_ROOT = os.geteuid() == 0


def run_on_a_terminal(cmd, env, cwd, owner=None, timeout=600):
    """Runs cmd as the session leader of a new pseudo-terminal (its controlling terminal, as a
    shell's child has). Returns (exit status, what the terminal showed, what waits in its input)."""
    master, slave = pty.openpty()
    if owner is not None:
        os.fchown(slave, owner, owner)

    shown = []

    def read_master():
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                return
            if not data:
                return
            shown.append(data)

    reader = threading.Thread(target=read_master, daemon=True)
    reader.start()
    p = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, preexec_fn=make_controlling_terminal, env=env, cwd=cwd)
    try:
        rc = p.wait(timeout=timeout)
    finally:
        if p.poll() is None:
            p.kill()
    waiting = waiting_input(slave)
    os.close(slave)
    reader.join(timeout=5)
    os.close(master)
    return rc, b"".join(shown).decode("utf-8", "replace"), waiting


def make_controlling_terminal():
    """preexec_fn for a child whose stdin is a terminal's slave: a session of its own with that
    terminal as its controlling terminal (as a shell's child has)."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def waiting_input(slave) -> str:
    """What a shell reading this terminal would now get: its input queue, read without waiting
    for a line's end (also the platforms' confinement test's, in the instructor's kit)."""
    attrs = termios.tcgetattr(slave)
    attrs[3] &= ~termios.ICANON
    attrs[6][termios.VMIN], attrs[6][termios.VTIME] = 0, 0
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    fcntl.fcntl(slave, fcntl.F_SETFL, os.O_NONBLOCK)
    waiting = b""
    try:
        while chunk := os.read(slave, 65536):
            waiting += chunk
    except BlockingIOError:
        pass
    return waiting.decode("utf-8", "replace")


class NoStepReachesTheCallersTerminal(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="banklab-terminal-test-")
        os.chmod(cls.tmp, 0o777)
        with open(os.path.join(ARGS.root, "labs", "05_swizzle", "kernel.cu")) as f:
            stub = f.read()
        with open(os.path.join(ARGS.root, "grader", "selftest", "cheats", "pushes_a_command_into_the_terminal.cu")) as f:
            case = f.read()
        cls.source = os.path.join(cls.tmp, "kernel.cu")
        with open(cls.source, "w") as f:
            f.write(stub + "\n" + case)
        os.chmod(cls.source, 0o644)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def judge(self, name, command, user=None, **env_extra):
        work = os.path.join(self.tmp, name)
        cmd = [ARGS.judge, command, "--lab", "05", "--source", self.source, "--work", work, "--tier", "cpu"]
        if command == "build":
            cmd.remove("--tier"), cmd.remove("cpu")
        owner = None
        if user == "nobody":
            cmd = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--", *cmd]
            owner = NOBODY
        env = dict(os.environ)
        env.pop("BANKLAB_ALLOW_UNCONFINED", None)
        env.update(env_extra)
        rc, shown, waiting = run_on_a_terminal(cmd, env, self.tmp, owner)
        log = ""
        if os.path.exists(os.path.join(work, "probe.log")):
            with open(os.path.join(work, "probe.log")) as f:
                log = f.read()
        self.assertNotIn(PUSHED, waiting, f"{name}: the probe's command line waits in the caller's terminal")
        self.assertNotIn(PUSHED, shown, f"{name}: the probe's command line was echoed on the caller's terminal")
        self.assertFalse(os.path.exists("/tmp/banklab-" + PUSHED))
        return rc, shown, log

    def assert_push_failed(self, log):
        m = re.search(re.escape(PAYLOAD) + r"(.*)", log)
        self.assertIsNotNone(m, "the payload never ran: the case proves nothing\n" + log[-800:])
        self.assertIn("TIOCSTI failed", m.group(1))
        self.assertNotIn("pushed a command line", m.group(1))
        print(f"\n    {self.id().split('.')[-1]}: {m.group(0)}", file=sys.stderr)

    @unittest.skipUnless(IS_ROOT, "needs root")
    def test_a_root_grade_in_bubblewrap(self):
        rc, shown, log = self.judge("root-grade", "grade")
        self.assertEqual(rc, 0, shown[-2000:])
        self.assert_push_failed(log)
        self.assertRegex(shown, r"lab 05: \d+ of \d+ passed")

    @unittest.skipUnless(IS_ROOT, "needs root")
    def test_a_root_judge_that_cannot_confine_refuses(self):
        # The disputed-grade workflow of issue 30: a TA re-checks one file as root in a container
        # without namespaces. The judge refuses; nothing of the file runs.
        rc, shown, log = self.judge("root-none", "build", BANKLAB_BWRAP="/bin/false")
        self.assertNotEqual(rc, 0, shown[-2000:])
        self.assertIn("refuses", shown)
        self.assertNotIn("BANKLAB-PAYLOAD-TIOCSTI", log)

    @unittest.skipUnless(IS_ROOT and shutil.which("setpriv"), "needs root and setpriv")
    def test_a_normal_users_build_in_bubblewrap(self):
        rc, shown, log = self.judge("nobody-bwrap", "build", user="nobody")
        self.assertEqual(rc, 0, shown[-2000:])
        self.assert_push_failed(log)

    def test_a_students_own_unconfined_build_is_in_a_session_of_its_own(self):
        # No bubblewrap, BANKLAB_ALLOW_UNCONFINED=1 (a student's own machine, their own file): the
        # step still has no controlling terminal.
        user = "nobody" if IS_ROOT and shutil.which("setpriv") else None
        if IS_ROOT and not user:
            self.skipTest("needs setpriv to run as a normal user")
        rc, shown, log = self.judge("own-unconfined", "build", user=user, BANKLAB_BWRAP="/bin/false",
                                    BANKLAB_ALLOW_UNCONFINED="1")
        self.assertEqual(rc, 0, shown[-2000:])
        self.assertIn("without a sandbox", shown)
        self.assert_push_failed(log)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--judge", required=True)
    ap.add_argument("--root", required=True)
    ARGS, rest = ap.parse_known_args()
    ARGS.judge, ARGS.root = os.path.abspath(ARGS.judge), os.path.abspath(ARGS.root)
    unittest.main(argv=[sys.argv[0], "-v", *rest])
