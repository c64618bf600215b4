"""`grade-class --engine slurm`: the class graded by a Slurm job array instead of local processes.

One run submits one job array (`sbatch --array`): task i grades shard i of the submissions (up to
--slurm-shard of them) on the GPUs it was given (`--gres=gpu:1` for the GPU tiers unless --slurm-arg
names other GPU flags, e.g. --slurm-arg=--gpus-per-task=2; none for the CPU tier): at least one judge
per GPU, as many as its --cpus-per-task, each judge on one GPU (banklab.grading.gpus). A task is grade-class
itself, run on the node with the instructor's own arguments and `--slurm-task RUN_DIR`: it finds
the same submissions, keys and judge, keeps only its shard (shard_of) and grades it with the local
engine's pool into the same OUT/results/, then stops before the reports (task_end). The submitting
grade-class then merges every result into the gradebook, the feedback and the LMS export exactly
as it does for the local engine: the grading logic is one.

What the nodes must see, at the same paths as the machine that submits: the course checkout and
its judge (--judge; checked on the node: a task whose judge or course files differ from the ones
the submitting machine hashed grades nothing and says why), the submissions, OUT, and the
Python that runs grade-class.

While the array runs, squeue is polled and the progress printed. A task that fails or is lost
(its node died, it was cancelled or ran out of time) leaves its submissions without a result: they
are submitted once more in a new array, and if that fails too they are reported by name, on the
terminal, in OUT/slurm/status.csv and in the student's feedback: not graded, blank in the
gradebook and every LMS file (never a silent 0), and grade-class exits non-zero (banklab.grading.status). A
task whose result is a fault (its node has no usable GPU under --graded, the judge crashed) fails
too, so that its submissions are submitted again. Submissions queued but not yet graded (--slurm-no-wait, or Ctrl-C)
are *pending* (an incomplete grade, as a --tier cpu one): their GPU tests are "not judged:
pending", their CPU tests keep the verdicts of an
earlier --tier cpu run of the same file with the same judge (the two-stage flow), and a re-run
waits for the array already queued instead of submitting them again; while any is pending,
grade-class names how many, prints the command that collects them (report_pending) and exits
non-zero (banklab.grading.status.PENDING_EXIT). Results are reused as by
the local engine, so a re-run submits only what changed or did not finish.

The environment the tasks give the judge never holds BANKLAB_ALLOW_UNCONFINED. Python 3 standard
library.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[3] / "instructor" / "batch"   # grade-class
from banklab.grading import judging   # noqa: E402
from banklab.grading import points as bpt   # noqa: E402
from banklab.grading import invocation   # noqa: E402
from banklab.grading.result import LabResult, Verdict   # noqa: E402
from banklab.grading import reports as br   # noqa: E402
from banklab.grading import status as bs    # noqa: E402
# What both sides read (a submission's saved result) and what a task does on its node:
# banklab/grading/slurm_task.py.
from banklab.grading.slurm_task import _done, _fault_of, _ident, _tail  # noqa: E402
from banklab.grading import csvfile  # noqa: E402  (the one CSV writer)

ENGINES = ("local", "slurm")
#: What the judge must never see when it grades someone else's file (the grader's confinement
#: contract, banklab.grading.invocation.grading_others): the task removes it before anything else.
UNCONFINED_VAR = invocation.UNCONFINED_VAR
#: sbatch flags that ask for GPUs: given any of them, the engine adds no --gres of its own.
GPU_FLAGS = ("--gres", "--gpus", "-G", "--gpus-per-node", "--gpus-per-task", "--gpus-per-socket",
             "--tres-per-task", "--tres-per-node")
#: sbatch flags the engine sets itself: the array, its output files and its wait mode.
OWN_FLAGS = ("--array", "-a", "--output", "-o", "--error", "-e", "--parsable", "--wait", "-W")
#: What the student's feedback says of a test the cluster has not judged yet, or could not judge
#: (the instructor's side, with job ids and logs, is OUT/slurm/status.csv and the terminal).
PENDING_NOTE = ("not judged: pending: queued for grading on the course's GPU cluster; the grade "
                "is completed when it has run")
LOST_NOTE = ("the cluster task that was to grade this submission ended {state} {tries} time(s) without "
             "a result: it is not graded yet (not a zero); your instructor grades it again")


class SlurmError(Exception):
    """Why the Slurm engine cannot grade (no sbatch, a refused job, a bad option): one message."""


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--engine", choices=ENGINES, default="local",
                    help="local: judges on this machine (default); slurm: a Slurm job array, one "
                         "task per --slurm-shard submissions, one GPU per task")
    g = ap.add_argument_group("--engine slurm")
    g.add_argument("--slurm-arg", action="append", default=[], metavar="FLAG",
                   help="a flag passed to sbatch as it is (repeat it): e.g. --slurm-arg=--partition=gpu "
                        "--slurm-arg=--account=cs4xx; a GPU flag (--gres, --gpus...) replaces the default "
                        "--gres=gpu:1, a --time replaces the default (shard x --timeout + 5 min)")
    g.add_argument("--slurm-shard", type=int, default=8, metavar="N",
                   help="submissions per array task (default 8), graded on the task's GPUs (one judge per "
                        "GPU, or one per CPU of --cpus-per-task when more)")
    g.add_argument("--slurm-throttle", type=int, default=0, metavar="M",
                   help="at most M tasks of the array at once (sbatch --array=...%%M; default: no limit)")
    g.add_argument("--slurm-retries", type=int, default=1, metavar="R",
                   help="times a failed or lost task's submissions are submitted again (default 1)")
    g.add_argument("--slurm-poll", type=float, default=10.0, metavar="S",
                   help="seconds between two squeue polls (default 10)")
    g.add_argument("--slurm-no-wait", action="store_true",
                   help="submit and return: the gradebook shows what is queued as pending; run the "
                        "same command again to wait for it and collect the results")
    g.add_argument("--slurm-task", metavar="RUN_DIR", help=argparse.SUPPRESS)   # set by the array's script


# --------------------------------------------------------------------------- the submitting side

class Array:
    """One submitted job array: its id, its folder (manifest, script, task logs), its items and
    the command that waits for it and collects its results (collect_command)."""

    def __init__(self, job_id: str, run_dir: Path, items: list[dict], collect: str = ""):
        self.job_id, self.run_dir, self.items, self.collect = job_id, run_dir, items, collect

    def to_json(self) -> dict:
        return {"job_id": self.job_id, "run_dir": str(self.run_dir), "items": self.items, "collect": self.collect}


def collect_command(argv: list[str], cwd: str) -> str:
    """The command, as it pastes into a shell, that waits for what `argv` (grade-class's own,
    sys.argv) queued and collects it: the same command without --slurm-no-wait (or any prefix of
    it argparse took for it), run from the same folder."""
    keep = [x for x in argv[1:] if not (x.startswith("--slurm-n") and "--slurm-no-wait".startswith(x))]
    cmd = shlex.join([argv[0]] + keep)
    return cmd if Path(cwd) == Path.cwd() else f"cd {shlex.quote(cwd)} && {cmd}"


def queued_by_file(out: Path) -> dict[str, tuple[str, str]]:
    """{result file: (job id, the command that collects it)} of every array OUT/slurm/state.json
    still holds (what banklab.grading.status.report_pending names)."""
    return {it["rfile"]: (arr.job_id, arr.collect) for arr in _load_state(out.resolve()) for it in arr.items}


def _which(cmd: str) -> str:
    p = shutil.which(cmd)
    if not p:
        raise SlurmError(
            f"--engine slurm needs Slurm's `{cmd}`, which is not on PATH here: run grade-class on "
            "the cluster's login node (where `sinfo` lists the partitions), or grade on this "
            "machine with --engine local")
    return p


def _flag_name(arg: str) -> str:
    return arg.split("=", 1)[0]


def _sbatch_flags(a, n_items: int) -> list[str]:
    """The flags of one array besides --array/--output: the instructor's --slurm-arg, and the
    defaults they do not replace (a job name, one GPU per task for the GPU tiers, a time limit)."""
    given = [x for x in a.slurm_arg if x]
    names = {_flag_name(x) for x in given}
    own = sorted(names & set(OWN_FLAGS))
    if own:
        raise SlurmError(f"--slurm-arg {', '.join(own)}: the engine sets this itself (one array "
                         "per run, a log per task under OUT/slurm/); leave it out")
    flags = []
    if not names & {"--job-name", "-J"}:
        flags.append("--job-name=banklab-grade")
    if a.tier != "cpu" and not any(n.startswith(g) for n in names for g in GPU_FLAGS):
        flags.append("--gres=gpu:1")
    if not names & {"--time", "-t"}:
        minutes = math.ceil(min(n_items, a.slurm_shard) * a.timeout / 60) + 5
        flags.append(f"--time={minutes}")
    return flags + given


def _submit(items: list[dict], a, ctx: dict, attempt: int) -> Array:
    """Submit `items` as one job array (shards of --slurm-shard). Raises SlurmError when sbatch
    refuses it, with sbatch's own words."""
    sbatch = _which("sbatch")
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    run_dir = ctx["out"] / "slurm" / f"{stamp}-try{attempt}"
    n = 1
    while run_dir.exists():
        n += 1
        run_dir = ctx["out"] / "slurm" / f"{stamp}-try{attempt}-{n}"
    run_dir.mkdir(parents=True)
    shard = max(1, a.slurm_shard)
    shards = [items[i:i + shard] for i in range(0, len(items), shard)]
    for t, sh in enumerate(shards):
        for it in sh:
            it["task"] = t
    manifest = {"judge_id": ctx["judge_id"], "shards": shards}
    (run_dir / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    # The task is grade-class itself, with the instructor's arguments, where they were given.
    argv = [sys.executable, str(HERE / "grade-class")] + ctx["argv"] + ["--slurm-task", str(run_dir)]
    script = run_dir / "task.sh"
    script.write_text(
        "#!/bin/sh\n# grade-class --engine slurm: task $SLURM_ARRAY_TASK_ID grades its shard of "
        "manifest.json.\n"
        f"unset {UNCONFINED_VAR}\n"
        f"cd {shlex.quote(ctx['cwd'])} || exit 3\n"
        f"exec {' '.join(shlex.quote(x) for x in argv)}\n")
    array = f"--array=0-{len(shards) - 1}" + (f"%{a.slurm_throttle}" if a.slurm_throttle > 0 else "")
    cmd = [sbatch, "--parsable", array, f"--output={run_dir}/task-%a.out"] + _sbatch_flags(a, len(items)) \
        + [str(script)]
    env = invocation.env_for_grading()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise SlurmError("sbatch did not answer in 120 s: is the Slurm controller up? (try: sinfo)")
    job_id = r.stdout.strip().split(";")[0]
    if r.returncode != 0 or not job_id.isdigit():
        shutil.rmtree(run_dir, ignore_errors=True)
        said = (r.stderr or r.stdout).strip() or f"exit status {r.returncode}"
        raise SlurmError(f"sbatch refused the job array: {said}\n  the command was: "
                         f"{' '.join(shlex.quote(c) for c in cmd)}\n  check the --slurm-arg flags "
                         "(partition, account, gres) with `sinfo -s` and your site's documentation")
    return Array(job_id, run_dir, items, collect_command(ctx["command"], ctx["cwd"]))


def _queue(job_id: str) -> list[tuple[str, str, str]] | None:
    """[(task, state, reason)] of the array's tasks squeue still lists ([] once it has ended), or
    None when squeue cannot answer now (the controller busy or down: ask again later)."""
    try:
        r = subprocess.run(["squeue", "-h", "-r", "-j", job_id, "-o", "%K|%T|%r"], capture_output=True,
                           text=True, timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if r.returncode != 0:
        return [] if "Invalid job id" in r.stderr else None
    return [tuple((l.split("|") + ["", "", ""])[:3]) for l in r.stdout.splitlines() if l.strip()]


def _ended_states(job_id: str) -> dict[str, tuple[str, str]]:
    """{task: (state, node and exit code)} of an ended array, from sacct where accounting is on,
    else from scontrol (which keeps ended jobs for MinJobAge); {} when neither knows."""
    out: dict[str, tuple[str, str]] = {}
    try:
        r = subprocess.run(["sacct", "-n", "-P", "-X", "-j", job_id, "-o", "JobID,State,NodeList,ExitCode"],
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        if r.returncode == 0:
            for l in r.stdout.splitlines():
                f = l.split("|")
                if len(f) >= 4 and "_" in f[0]:
                    out[f[0].split("_", 1)[1]] = (f[1].split()[0], f"node {f[2]}, exit {f[3]}")
        if out:
            return out
        r = subprocess.run(["scontrol", "show", "job", "-o", job_id], capture_output=True, text=True,
                           timeout=60, stdin=subprocess.DEVNULL)
        for l in r.stdout.splitlines() if r.returncode == 0 else []:
            kv = dict(x.split("=", 1) for x in l.split() if "=" in x)
            if "ArrayTaskId" in kv:
                out[kv["ArrayTaskId"]] = (kv.get("JobState", "?"),
                                          f"node {kv.get('NodeList', '?')}, exit {kv.get('ExitCode', '?')}")
    except (OSError, subprocess.TimeoutExpired):
        pass
    return out


def _earlier_cpu(item: dict, ctx: dict, a) -> dict[str, Verdict]:
    """The judged CPU-tier verdicts an earlier result of this very file and judge holds: a
    --tier cpu run's (stage one of the two-stage flow), or an earlier placeholder's of this key."""
    try:
        d = json.loads(Path(item["rfile"]).read_text())
        old = LabResult.from_json(d)
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    table = ctx["tables"][item["lab"]]
    sha = item["sha"]
    ok = {judging.cache_key(ctx["judge_id"], table, sha, "cpu", g, item["why"], item.get("variant_key", ""))
          for g in (False, True)}     # the same variant's CPU verdicts only
    ok |= {f"{bs.PENDING_KEY}{item['cache_key']}", f"lost:{item['cache_key']}"}
    if d.get("cache_key") not in ok or old.source_sha256 != sha:
        return {}
    return {v.test: v for v in old.verdicts if v.tier == "cpu" and v.status in ("passed", "failed")}


def _placeholder(item: dict, ctx: dict, a, kind: str, note: str, judge_note: str = "") -> None:
    """Write the result of an item the cluster has not graded (kind "pending" or "lost"): the
    CPU verdicts of an earlier run of the same file where there is one, every other test "not
    judged" (skipped: incomplete, earns nothing, never reused)."""
    lab = item["lab"]
    earlier = _earlier_cpu(item, ctx, a)
    verdicts = []
    for test, tier in ctx["expected"][lab]:
        verdicts.append(earlier.pop(test, None) or Verdict(test, tier, "skipped", note))
    verdicts += list(earlier.values())          # e.g. LabNN.Build, which the judge's list omits
    # A lost one names no source: nothing was judged from it this run, and the reports then list
    # its note with what could not be judged (the gradebook's column for it, where it has one).
    # Lost: not graded (blank everywhere, grade-class exits 4). Pending: an incomplete grade, as a
    # --tier cpu one is (the CPU verdicts of stage one kept), collected by the next run.
    ungraded = (judge_note or note.removeprefix("not judged: ")) if kind == "lost" else ""
    r = LabResult(item["student"], lab, "" if kind == "lost" else item["src"], item["sha"], a.tier,
                     verdicts, judge_note, ungraded=ungraded, variant=item.get("variant"))
    bpt.apply_points(r, ctx["tables"][lab])
    d = r.to_json()
    # What grade-class keeps with a result; a key that is not judging.cache_key()'s is never reused.
    d.update(graded=a.graded, cache_key=f"{kind}:{item['cache_key']}", lms_id=item["lms_id"], lms=item.get("lms") or {})
    br.write_json(Path(item["rfile"]), d)


def _submit_pending(items: list[dict], a, ctx: dict, attempt: int) -> Array:
    """_submit(), the items shown as pending from before the array exists (so that a task that
    finishes at once is never overwritten by its placeholder); put back as they were when sbatch
    refuses the array."""
    before = {}
    for it in items:
        p = Path(it["rfile"])
        before[p] = p.read_bytes() if p.is_file() else None
        _placeholder(it, ctx, a, "pending", PENDING_NOTE)
    try:
        return _submit(items, a, ctx, attempt)
    except BaseException:
        for p, data in before.items():
            if data is None:
                p.unlink(missing_ok=True)
                if p.parent.is_dir() and not any(p.parent.iterdir()):
                    p.parent.rmdir()
            else:
                p.write_bytes(data)
        raise


def _load_state(out: Path) -> list[Array]:
    try:
        d = json.loads((out / "slurm" / "state.json").read_text())
        return [Array(x["job_id"], Path(x["run_dir"]), x["items"], x.get("collect", "")) for x in d["arrays"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def _save_state(out: Path, arrays: list[Array]) -> None:
    p = out / "slurm" / "state.json"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps({"arrays": [x.to_json() for x in arrays]}, indent=1) + "\n")


def _write_status(out: Path, rows: list[list[str]]) -> None:
    """OUT/slurm/status.csv through the one CSV writer (a student's name is untrusted: a cell a
    spreadsheet would run is neutralised there)."""
    csvfile.write_csv(out / "slurm" / "status.csv", ["student", "lab", "status", "job", "task", "why", "log"],
                 sorted(rows))


def _key(it: dict) -> tuple:
    """A submission's identity across runs and retries: its result file and its cache key."""
    return it["rfile"], it["cache_key"]


def grade(jobs: list, a, judge: Path, judge_id: str, expected: dict, tables: dict,
          out: Path) -> tuple[int, list]:
    """Grade grade-class's `jobs` (student, lab, source, why, result file, cache key, ...) on
    Slurm. Returns how many got their result there in this run, and the jobs left to the local
    pool (those with nothing handed in: no judge runs for them). The results land in OUT/results/
    as the local engine's do; those known not gradable without a judge (a variant or identity that
    cannot be known) are left to the local pool too, which writes them not graded at once. Raises
    SlurmError (nothing submitted)."""
    out = out.resolve()
    ctx = {"out": out, "judge_id": judge_id, "argv": sys.argv[1:], "command": list(sys.argv), "cwd": os.getcwd(),
           "tables": tables,
           "expected": {lab: [list(t) for t in e] for lab, e in expected.items()}}
    say = (lambda *x: None) if a.quiet else (lambda *x: print(*x, flush=True))
    _sbatch_flags(a, 1)                  # a flag the engine sets itself is refused before anything
    if a.slurm_shard < 1 or a.slurm_retries < 0 or a.slurm_throttle < 0:
        raise SlurmError("--slurm-shard must be >= 1, --slurm-retries and --slurm-throttle >= 0")
    # Nothing handed in, or known not gradable before any judge runs (the student's variant or
    # identity cannot be known: assigned.Assignment.ungraded): no node is needed, never a task.
    local = [j for j in jobs if j[2] is None or (len(j) > 6 and j[6] is not None and j[6].ungraded)]
    items = []
    for j in (j for j in jobs if j not in local):
        st, lab, src, why, rfile, key = j[:6]
        asg = j[6] if len(j) > 6 else None    # the student's variant (assigned.Assignment): the placeholders show it
        items.append({"student": st.name, "lms_id": st.lms_id, "lms": st.lms, "lab": lab, "src": str(Path(src).resolve()),
                      "sha": judging.sha256_of(src), "why": why, "rfile": _ident(rfile, key)[0], "cache_key": key,
                      "variant": asg.k if asg is not None and asg.count else None,
                      "variant_key": asg.key() if asg is not None else ""})
    if not items:
        return 0, local
    _which("sbatch")
    _which("squeue")
    todo = {_key(it): it for it in items}
    active, others, tries = _resume_or_submit(out, todo, a, ctx, say)
    status = {k: [todo[k]["student"], todo[k]["lab"], "pending", arr.job_id, str(todo[k].get("task", "")),
                  "", str(arr.run_dir / f"task-{todo[k].get('task', '')}.out")]
              for arr in active for k in map(_key, arr.items)}
    if a.slurm_no_wait:
        _write_status(out, list(status.values()))
        say(f"slurm: {len(status)} submission(s) pending; run the same command again to collect them")
        return 0, local
    try:
        lost = _wait(active, others, todo, tries, status, a, ctx, out, say)
    except KeyboardInterrupt:
        ids = " ".join(x.job_id for x in active)
        print(f"\ngrade-class: the Slurm job(s) {ids} keep running; run the same command again to "
              f"wait for them and collect their results (their submissions show as pending), or "
              f"cancel them: scancel {ids}", file=sys.stderr)
        _write_status(out, list(status.values()))
        raise
    _settle(lost, todo, tries, status, a, ctx, out)
    return sum(_done(it) for it in todo.values()), local


def _resume_or_submit(out: Path, todo: dict, a, ctx: dict, say) -> tuple[list, list, dict]:
    """The arrays to wait for: those of an earlier run still queued or running (their submissions
    are not submitted again), and one new array for the rest of `todo`. Another run's array still
    queued (another lab into the same OUT) stays in the state too. Returns (the arrays to wait for,
    the others, the tries of each submission so far)."""
    active: list[Array] = []
    others: list[Array] = []
    for arr in _load_state(out):
        mine = [it for it in arr.items if _key(it) in todo]
        q = _queue(arr.job_id)
        if mine and q != []:
            active.append(Array(arr.job_id, arr.run_dir, mine, arr.collect))
        elif q != []:
            others.append(arr)
    queued = {_key(it) for arr in active for it in arr.items}
    if queued:
        say(f"slurm: {len(queued)} submission(s) are already queued in job(s) "
            f"{', '.join(x.job_id for x in active)}: waiting for them instead of submitting them again")
    tries = {k: 1 for k in queued}
    fresh = [it for k, it in todo.items() if k not in queued]
    if fresh:
        arr = _submit_pending(fresh, a, ctx, 1)
        active.append(arr)
        for it in fresh:
            tries[_key(it)] = 1
        say(f"slurm: submitted job {arr.job_id}: {len(fresh)} submission(s) in "
            f"{len({it['task'] for it in fresh})} task(s); logs in {arr.run_dir}")
    _save_state(out, active + others)
    return active, others, tries


def _wait(active: list, others: list, todo: dict, tries: dict, status: dict, a, ctx: dict, out: Path,
          say) -> list:
    """Polls the arrays of `active` (kept up to date in place: on ^C the caller names the jobs
    still running) until none is queued, submitting again each submission whose task ended
    without its result, up to --slurm-retries times. Returns the submissions lost:
    (item, its array, the task's state, why, its log)."""
    t0, last, lost = time.monotonic(), "", []
    while active:
        time.sleep(max(0.5, a.slurm_poll))
        still, ended, line = _poll(active, todo)
        if line != last:
            say(f"{line}  [{time.monotonic() - t0:.0f} s]")
            last = line
        retry = _retry_or_lose(ended, tries, a, say, lost)
        active[:] = still
        if retry:
            arr = _submit_pending(retry, a, ctx, max(tries[_key(it)] for it in retry))
            active.append(arr)
            for it in retry:
                status[_key(it)][3:5] = [arr.job_id, str(it["task"])]
                status[_key(it)][6] = str(arr.run_dir / f"task-{it['task']}.out")
            say(f"slurm: submitted job {arr.job_id} (retry): {len(retry)} submission(s)")
        _save_state(out, active + others)
    return lost


def _poll(active: list, todo: dict) -> tuple[list, list, str]:
    """One look at the queue: (the arrays still queued, those that ended, the progress line)."""
    still, ended = [], []
    counts: dict[str, int] = {}
    reasons = set()
    for arr in active:
        q = _queue(arr.job_id)
        if q is None:                          # the controller did not answer: keep waiting
            still.append(arr)
            counts["squeue did not answer"] = counts.get("squeue did not answer", 0) + 1
            continue
        for _, state, reason in q:
            counts[state.lower()] = counts.get(state.lower(), 0) + 1
            if state == "PENDING" and reason and reason != "None":
                reasons.add(reason)
        (still if q else ended).append(arr)
    graded = sum(_done(it) for it in todo.values())
    line = (f"slurm: {graded}/{len(todo)} graded; "
            + (", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "no task queued")
            + (f" (waiting: {', '.join(sorted(reasons))})" if reasons else ""))
    return still, ended, line


def _retry_or_lose(ended: list, tries: dict, a, say, lost: list) -> list:
    """The submissions of the ended arrays that got no result: those to submit again (returned;
    their tries counted) and those past --slurm-retries (appended to `lost`)."""
    retry = []
    for arr in ended:
        missing = [it for it in arr.items if not _done(it)]
        if not missing:
            continue
        states = _ended_states(arr.job_id)
        for it in missing:
            k = _key(it)
            st, where = states.get(str(it["task"]), ("without a result", "state unknown"))
            log = arr.run_dir / f"task-{it['task']}.out"
            why = _tail(log) or where
            if tries[k] <= a.slurm_retries:
                tries[k] += 1
                retry.append(it)
                say(f"slurm: task {it['task']} of job {arr.job_id} ended {st} ({where}) without "
                    f"grading {it['student']} lab {it['lab']}: submitting it again")
            else:
                lost.append((it, arr, st, why, log))
    return retry


def _settle(lost: list, todo: dict, tries: dict, status: dict, a, ctx: dict, out: Path) -> None:
    """After the wait: each lost submission not graded (its placeholder result, named, unless its
    task judged it a fault), OUT/slurm/status.csv written, the lost ones named on stderr."""
    for it, arr, st, why, log in lost:
        fault = _fault_of(it)
        if fault:        # the task judged it a fault (no usable GPU on its node...): kept, named as it is
            why = f"{fault} ({tries[_key(it)]} task(s), last ended {st})"
        else:
            note = LOST_NOTE.format(state=st, tries=tries[_key(it)])
            _placeholder(it, ctx, a, "lost", f"not judged: {note}", judge_note=note)
        status[_key(it)] = [it["student"], it["lab"], "not graded", arr.job_id, str(it["task"]), why, str(log)]
    for k, it in todo.items():
        if _done(it):
            status[k][2] = "graded"
    _write_status(out, list(status.values()))
    if lost:
        print(f"grade-class: {len(lost)} submission(s) were NOT graded: their Slurm task failed "
              f"{a.slurm_retries + 1} time(s). The gradebook and the LMS files leave them blank (not a grade), "
              f"their feedback says why, {out / 'slurm' / 'status.csv'} lists them:", file=sys.stderr)
        for it, arr, st, why, log in lost:
            print(f"  {it['student']} lab {it['lab']}: task {it['task']} of job {arr.job_id} ended {st}: "
                  f"{why} (log: {log})", file=sys.stderr)
