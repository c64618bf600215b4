"""The Slurm engine's task side (banklab.grading.slurm submits the array): what a task does on its
node (its shard of grade-class's jobs, its exit status) and what both sides read, a submission's
saved result (done, or not graded and why)."""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
from pathlib import Path

from banklab.grading import judging
from banklab.grading import invocation
from banklab.grading.result import LabResult
from banklab.grading import gpus as banklab_gpus
from banklab.grading import status as bs


# --------------------------------------------------------------------------- both sides

def _tail(path: Path, n: int = 1) -> str:
    try:
        lines = [l for l in path.read_text(errors="replace").splitlines() if l.strip()]
    except OSError:
        return ""
    return " | ".join(lines[-n:])


def _saved(item: dict) -> dict:
    try:
        d = json.loads(Path(item["rfile"]).read_text())
        return d if isinstance(d, dict) else {}
    except (OSError, ValueError):
        return {}


def _done(item: dict) -> bool:
    """Whether the item's result file holds this run's result (the key grade-class asked for) and
    it is a grade: a result not graded (a fault: no usable GPU on the node, a crashed judge) is
    not done, so the task fails and Slurm's task is submitted again (--slurm-retries)."""
    d = _saved(item)
    return d.get("cache_key") == item["cache_key"] and bs.reusable(d)


def _fault_of(item: dict) -> str:
    """Why this run's result of the item is not graded, when the task judged it so ("" else)."""
    d = _saved(item)
    if d.get("cache_key") != item["cache_key"]:
        return ""
    try:
        return LabResult.from_json(d).not_graded
    except (KeyError, TypeError, ValueError):
        return ""


# --------------------------------------------------------------------------- the task (on a node)

def _ident(rfile, key: str) -> tuple[str, str]:
    return (str(Path(rfile).resolve()), key)


def _task_refuses(why: str) -> None:
    print(f"banklab slurm task {os.environ.get('SLURM_ARRAY_TASK_ID', '?')} on {socket.gethostname()}: "
          f"{why}", file=sys.stderr, flush=True)
    sys.exit(3)


def shard_of(a, jobs: list, judge_id: str) -> list:
    """grade-class's jobs, or in a Slurm task (--slurm-task RUN_DIR) only those of its shard,
    found by their result file and cache key as the submitting side computed them. A node whose
    judge or course files hash otherwise grades nothing and exits 3, saying why."""
    if not getattr(a, "slurm_task", None):
        return jobs
    invocation.grading_others()
    index = int(os.environ.get("SLURM_ARRAY_TASK_ID", "-1"))
    m = json.loads((Path(a.slurm_task) / "manifest.json").read_text())
    if not 0 <= index < len(m["shards"]):
        _task_refuses(f"no shard {index} in {a.slurm_task}/manifest.json")
    if judge_id != m["judge_id"]:
        _task_refuses("the judge or the course files this node sees differ from the ones the submitting "
                      "machine hashed: the nodes must see one shared course build at the same path")
    shard = m["shards"][index]
    wanted = {(it["rfile"], it["cache_key"]) for it in shard}
    mine = [j for j in jobs if _ident(j[4], j[5]) in wanted]
    found = {_ident(j[4], j[5]) for j in mine}
    lost = [it for it in shard if (it["rfile"], it["cache_key"]) not in found and not _done(it)]
    if lost:
        here = {_ident(j[4], j[5])[0] for j in jobs}
        why = ("it is here, but this task would grade it otherwise: another variant (the course seed: "
               "--course-seed, or $BANKLAB_COURSE_SEED exported to the task), roster, tier or points table "
               "than the submitting machine's" if lost[0]["rfile"] in here else
               "the nodes must see the submissions and the course at the same paths")
        _task_refuses(f"{len(lost)} submission(s) of this shard are not found here as on the submitting "
                      f"machine (first: {lost[0]['student']} lab {lost[0]['lab']}): {why}")

    def on_term(signum, frame):        # scancel, a time limit, a node going down: stop every judge
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        judging.stop_all()
        raise KeyboardInterrupt        # grade-class's Ctrl-C path: keep nothing half-judged, clean up
    signal.signal(signal.SIGTERM, on_term)
    # The CPUs the task was given (--slurm-arg=--cpus-per-task=N), and for the GPU tiers at least one
    # judge per GPU it was given, each judge on one of them (banklab.grading.gpus; each GPU's lock keeps
    # its timed runs one at a time).
    a.jobs = banklab_gpus.slurm_task_jobs(a.tier)
    print(f"banklab slurm task {index} on {socket.gethostname()}: {len(mine)} submission(s), "
          f"{a.jobs} at a time", flush=True)
    return mine


def task_end(a, jobs: list) -> int:
    """A task's exit status: 0 when every submission of its shard has its result."""
    m = json.loads((Path(a.slurm_task) / "manifest.json").read_text())
    shard = m["shards"][int(os.environ.get("SLURM_ARRAY_TASK_ID", "0"))]
    missing = [it for it in shard if not _done(it)]
    print(f"banklab slurm task on {socket.gethostname()}: {len(shard) - len(missing)} of {len(shard)} "
          "graded", flush=True)
    return 1 if missing else 0
