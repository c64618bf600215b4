"""The judge's invocation: its command line, the environment and confinement it grades in (a
refusal where nothing well-kept can confine), and the list of a lab's tests it prints."""
from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from banklab.lab import labs as banklab_labs   # noqa: E402  (what a lab is: python/banklab/lab/labs.py)


def probe_access_problem(work: Path) -> str:
    """Whether the judge can run the student's probe for this work folder ("" when it can).
    Run as root, banklab-judge runs each probe as `nobody` from a private folder under /tmp with
    its own copy of the probe program, so the work folder itself may lie anywhere (under /root
    too): nothing to refuse. Kept so that callers have one place to ask."""
    return ""


def judge_cmd(judge: Path) -> list[str]:
    # A script judge (the test double) runs with this Python, so no PATH lookup is involved.
    if judge.suffix == ".py":
        return [sys.executable, str(judge)]
    return [str(judge)]


def wait_or_kill_group(p: subprocess.Popen, timeout: float) -> tuple[bytes | str | None, bool]:
    """Waits at most `timeout` s for `p`, which leads a process group of its own (started with
    start_new_session=True), reading its stdout where that is a pipe. Past `timeout`, SIGKILL goes
    to the whole group (its children and grandchildren with it) and `p` is reaped. When `p` ends in
    time, what it left running in its group (a grandchild sent to the background) is killed too:
    a step ends with all its processes before anything reads its results. The one
    kill-the-group step of the package (the judge's run, the unpacking process).
    Returns (its stdout, or None where it is not a pipe or `p` was killed; whether it was killed)."""
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(p.pid)
        p.communicate()
        return None, True
    _kill_group(p.pid)       # p is reaped; its group id stays taken while any member is left
    return out, False


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass                 # nothing of the group is left


#: Grading that counts (issue 45): the judge refuses to build where it can make no cgroup per
#: step (a normal user on cgroup v1, or on v2 without a delegated cgroup), so a student's file
#: never runs with per-process limits only when someone else grades it: that lab is not graded (a
#: fault, its fix named). Every grader of others passes it (grade_one: grade-class, its Slurm tasks,
#: the platform adapters); a student's own ctest does not, and builds with per-process limits.
REQUIRE_STEP_LIMITS = "--require-step-limits"

#: Lets the judge build without any confinement on a student's own machine (not root, not
#: --graded). A tool that grades other people's files never passes it on: grading_others().
UNCONFINED_VAR = "BANKLAB_ALLOW_UNCONFINED"


def grading_others() -> None:
    """Called first by every tool that grades someone else's file (grade-class, grade-platform,
    the Slurm tasks): the judge it starts never sees BANKLAB_ALLOW_UNCONFINED, so it confines the
    file (bubblewrap) or refuses to build it."""
    os.environ.pop(UNCONFINED_VAR, None)


def env_for_grading() -> dict:
    """This process's environment as a judge that grades someone else's file must get it: without
    BANKLAB_ALLOW_UNCONFINED (for a child started before, or without, grading_others()), and
    without the course seed (BANKLAB_COURSE_SEED: the grader's, passed to the judge as --variant K)."""
    return {k: v for k, v in os.environ.items() if k not in (UNCONFINED_VAR, "BANKLAB_COURSE_SEED")}


@dataclasses.dataclass
class Confinement:
    """What `banklab-judge sandbox` says: mode "bwrap" (the judge confines every step in
    bubblewrap) or "none" (it refuses to build); `line` is its first line, `text` all it printed."""
    mode: str
    line: str
    text: str

    @property
    def refused(self) -> bool:
        return self.mode != "bwrap"

    @property
    def no_step_limits(self) -> bool:
        """The judge confines but makes no cgroup per step here ("no cgroup (WHY): ... per process
        only"): every grade it is asked for (REQUIRE_STEP_LIMITS) is then a fault."""
        return not self.refused and "no cgroup (" in self.line


def parse_sandbox(rc: int, text: str) -> Confinement:
    """`banklab-judge sandbox` output -> Confinement. Only the first word after `sandbox:` is
    read; anything else (no such line, an unknown word, a non-zero exit) is "none", and so is an
    older judge's "uid" (a jail made by hand: issue 30)."""
    line = next((l.strip() for l in text.splitlines() if l.strip()), "")
    mode = "none"
    if rc == 0 and line.startswith("sandbox:"):
        word = (line.split()[1:] or [""])[0]
        if word == "bwrap" or os.path.basename(word) == "bwrap":      # the judge before the uid mode: "sandbox: /usr/bin/bwrap (...)"
            mode = "bwrap"
    return Confinement(mode, line or f"banklab-judge sandbox printed nothing (exit {rc})", text.strip())


def confinement(judge: Path, timeout: float = 120) -> Confinement:
    """How the judge would confine a student's file on this machine, as grading_others() leaves
    its environment."""
    env = env_for_grading()
    try:
        r = subprocess.run(judge_cmd(judge) + ["sandbox"], capture_output=True, text=True,
                           timeout=timeout, env=env, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return Confinement("none", f"banklab-judge sandbox did not run ({e})", "")
    return parse_sandbox(r.returncode, r.stdout + r.stderr)


def refusal_text(conf: Confinement) -> str:
    """What a grading tool says, once, when the judge cannot confine a student's file here."""
    why = conf.line[len("no sandbox:"):].strip() if conf.line.startswith("no sandbox:") else conf.line
    return ("the judge cannot confine a student's code on this machine, so nothing was graded "
            f"({why}). A student's file is only ever built and run in bubblewrap: install it "
            "(apt-get install bubblewrap) where it may make mount and PID namespaces (as root no user "
            "namespace is needed; a container that forbids namespaces cannot grade). Check with: "
            "banklab-judge sandbox")


def parse_list(text: str) -> list[tuple[str, str, str]]:
    """`banklab-judge list` output -> [(lab, test, tier)]. Accepts JSON (a list of objects
    with lab/test or name/tier) or lines holding a two-digit lab, a Suite.Test name and a tier."""
    text = text.strip()
    out = []
    if text.startswith("[") or text.startswith("{"):
        data = json.loads(text)
        if isinstance(data, dict):
            data = data.get("tests", [])
        for t in data:
            out.append((str(t["lab"]), str(t.get("test") or t["name"]), str(t["tier"])))
        return out
    for line in text.splitlines():
        toks = line.replace(",", " ").replace("\t", " ").split()
        lab = next((t for t in toks if banklab_labs.lab_number(t) == t), None)
        name = next((t for t in toks if re.fullmatch(r"[A-Za-z0-9_]+\.[A-Za-z0-9_]+", t)), None)
        tier = next((t for t in toks if t in ("cpu", "gpu")), None)
        if lab and name and tier:
            out.append((lab, name, tier))
    return out


def list_tests(judge: Path, lab: str, timeout: float = 60) -> list[tuple[str, str]]:
    """[(test, tier)] of one lab, from the judge itself (the grader's own list)."""
    r = subprocess.run(judge_cmd(judge) + ["list", "--lab", lab], capture_output=True,
                       text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"banklab-judge list --lab {lab} failed ({r.returncode}): {r.stderr.strip()}")
    tests = [(name, tier) for l, name, tier in parse_list(r.stdout) if l == lab]
    if not tests:
        raise RuntimeError(f"banklab-judge list --lab {lab} named no test of lab {lab}")
    return tests
