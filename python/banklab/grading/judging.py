"""Judging one submission: grade_one() runs `banklab-judge grade` on one kernel.cu in a process
of its own and reads its verdict records (docs/dev/GRADER.md) into a LabResult
(banklab.grading.result), scored with the lab's points table (banklab.grading.points). The batch
grader (grade-class), its Slurm tasks and the platform scripts (Gradescope, PrairieLearn, GitHub
Actions) all grade through it; it also says what decides a saved result (judge_identity,
cache_key, verdict_key).

Fail closed: a test earns its points only when the judge's own record for it,
in a grade file whose source hash is the hash of the file we gave the judge,
says "passed" with checks > 0. Anything else (no record, unreadable file, a
hash that does not match, a judge that timed out or crashed) is a failure with
a message that says why. Python 3 standard library only.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from banklab.lab import labs as banklab_labs
from banklab.lab import variants as banklab_variants
from banklab.lab.schema import DescriptionError
from banklab.grading import gpus as banklab_gpus   # which GPU each judge gets
from banklab.grading import cleantext as ct        # text a student chose, made harmless
from banklab import schemas                # every JSON format's schema name
from banklab.grading.invocation import REQUIRE_STEP_LIMITS, env_for_grading, judge_cmd, wait_or_kill_group
from banklab.grading.points import PointsTable, apply_points
from banklab.grading.result import STATUSES, LabResult, Verdict
from banklab.grading.uploads import IGNORED, ORIGIN

TIERS = ("cpu", "gpu", "all")

#: Outer limit on one `banklab-judge grade` run (the judge has its own per step: judge_limits()).
#: Overridable with --timeout.
DEFAULT_GRADE_TIMEOUT_S = 900.0
TIMEOUT_NOTE = ("the grading of your file did not finish within {:g} s and was stopped: most often code "
                "that never ends (in a kernel, or in code that runs at start-up); if your file finishes "
                "quickly on your machine, ask your instructor to grade it again")


def repo_root() -> Path:
    return Path(__file__).resolve().parents[3]


def judge_limits(course: Path | None = None) -> dict[str, float]:
    """The judge's own time limits, read from their one home, grader/judge/limits.json (CMake
    compiles the same file's numbers into the judge): {"compile": seconds per nvcc compile,
    "probe": seconds for the probe}. Every document and platform setting that states them is
    checked against these (test batch.*). A file of another schema, or without a positive number,
    raises SchemaError."""
    rel = "grader/judge/limits.json"
    data = schemas.loads(((course or repo_root()) / rel).read_bytes(), schemas.LIMITS)
    out = {}
    for key in ("compile", "probe"):
        v = data.get(key + "_s")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
            raise schemas.SchemaError(f"{rel}: {key}_s is {v!r}, not a number of seconds above 0")
        out[key] = float(v)
    return out


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def find_judge(root: Path, given: str | None = None) -> Path:
    """The judge binary: --judge, else $BANKLAB_JUDGE, else the first banklab-judge under build/."""
    cand = given or os.environ.get("BANKLAB_JUDGE")
    if cand:
        p = Path(cand)
        if not p.is_file():
            raise FileNotFoundError(f"judge {p} does not exist")
        return p.resolve()
    for p in sorted((root / "build").glob("*/**/banklab-judge")):
        if p.is_file() and os.access(p, os.X_OK):
            return p
    raise FileNotFoundError(
        "no banklab-judge found: build it (cmake --build build/dev --target banklab_judge) "
        "or pass --judge PATH")


def judge_identity(judge: Path, course: Path) -> str:
    """sha256 of what decides a verdict besides the submission: the judge binary and the course
    files it compiles with a student's file (grader/include, common/include, each lab's probe,
    judge code, description and answers, and python/banklab/lab/, which generates C++ from the last two).
    A result is reused only when this is unchanged: a fixed judge regrades the class."""
    h = hashlib.sha256(judge.read_bytes())
    files = [p for d in ("grader/include", "common/include") for p in sorted((course / d).rglob("*"))]
    try:
        labs = banklab_labs.find_labs(course).values()
    except DescriptionError:
        labs = []             # a broken description: the judge refuses the lab anyway
    for lab in labs:
        files += [lab.probe, lab.test, lab.description_path, lab.answers_path]
    files += sorted((course / "python" / "banklab" / "lab").glob("*.py"))
    for p in files:
        if p.is_file():
            h.update(str(p.relative_to(course)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def gpu_device(tier: str, graded: bool, emulate_gpu: bool, lab_emulated: bool, have_gpu: bool,
               environ: dict | None = None) -> str:
    """Where the judge runs a lab's GPU tier, as its emulation_wanted() decides
    (grader/judge/emulation.cpp): "" (tier cpu: no GPU tier), "emulator" (BANKLAB_EMULATE=1, or by
    default an emulated lab where no GPU is usable unless graded mode needs one: --graded without
    --emulate-gpu), "gpu" (a GPU is seen: banklab.grading.gpus.discover(), `have_gpu`), or "none"
    (no GPU and no emulator: the GPU tests skip). Part of cache_key(): a result judged on the
    emulator is never reused where a GPU judges, nor the other way round."""
    if tier == "cpu":
        return ""
    said = (os.environ if environ is None else environ).get("BANKLAB_EMULATE", "")
    if said == "1" or (said != "0" and lab_emulated and not (graded and not emulate_gpu) and not have_gpu):
        return "emulator"
    return "gpu" if have_gpu else "none"


def lab_devices(course: Path, labs, tier: str, graded: bool, emulate_gpu: bool, engine: str = "local") -> dict:
    """gpu_device() of each lab of `labs` graded here ({NN: device}); with --engine slurm, "slurm"
    for every lab with a GPU tier (the cluster's nodes decide, not this machine). nvidia-smi is
    asked once, and only when the tier has GPU tests."""
    if tier == "cpu":
        return {n: "" for n in labs}
    if engine == "slurm":
        return {n: "slurm" for n in labs}
    try:
        found = banklab_labs.find_labs(course)
    except DescriptionError:
        found = {}
    have_gpu = bool(banklab_gpus.discover())
    return {n: gpu_device(tier, graded, emulate_gpu, bool(n in found and found[n].gpu_emulated), have_gpu)
            for n in labs}


def device_of_result(saved: dict) -> str:
    """Where a saved result's GPU verdicts were judged: "emulator" (one says "emulated"), "gpu" (one
    passed or failed after checks, none emulated), or "" (no GPU verdict judged: nothing to tell)."""
    gpu = [v for v in saved.get("verdicts") or [] if isinstance(v, dict) and v.get("tier") == "gpu"]
    if any(v.get("emulated") is True for v in gpu):
        return "emulator"
    judged = [v for v in gpu if v.get("status") in ("passed", "failed") and isinstance(v.get("checks"), int)
              and v["checks"] > 0]
    return "gpu" if judged else ""


def same_device(saved: dict, device: str) -> bool:
    """Whether a saved result may be reused where the GPU tier runs on `device` (gpu_device()): a
    result whose verdicts say another device (a prediction that was wrong) is judged again."""
    got = device_of_result(saved)
    return device in ("", "slurm") or got in ("", device)


def _device_part(device: str) -> list:
    return [f"device:{device}"] if device else []     # tier cpu: the key of before


def cache_key(judge_id: str, table: PointsTable, sha: str, tier: str, graded: bool, note: str,
              variant: str = "", emulate_gpu: bool = False, device: str = "") -> str:
    """What a saved result must match to be reused: the judge, the points table (and weights),
    the submission, the tier and graded mode (with --emulate-gpu: the emulator may judge the GPU
    tier), the device of the GPU tier (gpu_device(): a GPU, the emulator, none), and, with no
    submission, why there was none, and for a lab with variants the variant it was graded as
    (assigned.Assignment.key())."""
    return hashlib.sha256(json.dumps([judge_id, table.digest, sha, tier, graded, "" if sha else note]
                                     + ([variant] if variant else [])
                                     + (["emulate-gpu"] if graded and emulate_gpu else [])
                                     + _device_part(device)).encode()).hexdigest()


def verdict_key(judge_id: str, sha: str, tier: str, graded: bool, note: str, variant: str = "",
                emulate_gpu: bool = False, device: str = "") -> str:
    """What decides a saved result's VERDICTS: cache_key() less the points table. A result whose
    verdict_key still matches while its cache_key does not (only the points table or a weight
    changed) is re-scored from its stored verdicts (rescore_saved()), never judged again."""
    return hashlib.sha256(json.dumps(["verdicts", judge_id, sha, tier, graded, "" if sha else note]
                                     + ([variant] if variant else [])
                                     + (["emulate-gpu"] if graded and emulate_gpu else [])
                                     + _device_part(device)).encode()).hexdigest()


_RUNNING: set[subprocess.Popen] = set()
_RUNNING_LOCK = threading.Lock()
#: Set by stop_all(): results finished after it are not to be kept (the run was interrupted).
STOPPING = threading.Event()


def stop_all() -> None:
    """Stop every judge this process started (each in its own session) and refuse new ones:
    what Ctrl-C in grade-class does before it exits."""
    STOPPING.set()
    with _RUNNING_LOCK:
        for p in list(_RUNNING):
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def run_limited(cmd: list[str], timeout: float, log: Path, env: dict | None = None) -> tuple[int | None, str]:
    """Run `cmd` in its own process group with stdout+stderr to `log` (and `env`, when given, as its
    environment); kill the whole group at `timeout`. Returns (exit status or None when killed, a note)."""
    with open(log, "wb") as out:
        with _RUNNING_LOCK:
            if STOPPING.is_set():
                return -1, "the run was interrupted"
            p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 start_new_session=True, env=env)
            _RUNNING.add(p)
        try:
            _, killed = wait_or_kill_group(p, timeout)
            return (None, TIMEOUT_NOTE.format(timeout)) if killed else (p.returncode, "")
        finally:
            with _RUNNING_LOCK:
                _RUNNING.discard(p)


def read_grade_file(path: Path, lab: str, sha: str) -> tuple[dict[str, dict], str]:
    """The judge's records by test name, or ({}, why) when the file cannot be trusted."""
    try:
        data = schemas.loads(path.read_bytes(), schemas.GRADE)
    except FileNotFoundError:
        return {}, "the judge wrote no verdict file"
    except OSError as e:
        return {}, f"the judge's verdict file is unreadable ({e})"
    except schemas.SchemaError as e:
        return {}, f"the judge's verdict file is unreadable as a {schemas.GRADE} record ({e})"
    if str(data.get("lab")) != lab:
        return {}, f"the verdict file is for lab {data.get('lab')!r}, not {lab}"
    if data.get("source_sha256") != sha:
        return {}, "the verdict file names a different source than the one submitted (hash differs)"
    records = {}
    for r in data.get("verdicts") or []:
        if not isinstance(r, dict) or r.get("schema") != schemas.VERDICT or "test" not in r:
            return {}, "the verdict file holds a record that is not a verdict"
        records[str(r["test"])] = r
    return records, ""


#: grader/watchdog.hpp's line when a kernel never ends (the test's process then writes no verdict):
#: "... did not finish within N s ... a loop in the kernel never ends ...", found by _watchdog_line().
_WATCHDOG_STOP, _WATCHDOG_CAUSE = "did not finish within ", "a loop in the kernel never ends"
_KILLED_RE = re.compile(r"(?:\((?P<step>probe|nvcc): )?killed after (?P<s>\d+) s \(time limit\)")


def _watchdog_line(message: str) -> tuple[int, str] | None:
    """(where it starts, the line) of the first line that holds the watchdog's words, else None.
    Linear in the message's length (a line is given up at its first stop without the cause: a
    later stop on it has less of the line after it), unlike a pattern that starts at each of the
    line's characters."""
    pos, end = 0, -1
    while (i := message.find(_WATCHDOG_STOP, pos)) >= 0:
        if i > end:                            # each line's end is looked for once
            end = message.find("\n", i)
            end = len(message) if end < 0 else end
        k = j = i + len(_WATCHDOG_STOP)
        while k < end and message[k].isdigit():
            k += 1
        word_start = i == 0 or not (message[i - 1].isalnum() or message[i - 1] == "_")
        if word_start and k > j and message.startswith(" s", k):
            if message.find(_WATCHDOG_CAUSE, k + 2, end) < 0:
                pos = end + 1                  # no cause after this stop: none after a later one either
                continue
            start = message.rfind("\n", 0, i) + 1
            return start, message[start:end]
        pos = i + 1
    return None


def lead_with_cause(message: str) -> str:
    """A judge's message about a step stopped at its time limit, led by that cause. The judge
    words what it found AFTER the stop (a probe killed at 20 s is reported as answers it could not
    read; a test killed at its limit as a verdict it did not write): a student must first read
    that their code did not finish, then the judge's own words. Other messages are unchanged."""
    message = ct.message(message)     # bounded and visible before anything reads it (cleantext.py)
    if message.lower().startswith(("your code did not finish", "compiling your file took")):
        return message
    w = _watchdog_line(message)
    if w and w[0] > 0:                # the GPU watchdog's own line, buried in a test's log
        return f"your code did not finish: {w[1].strip()} The judge's own words: {message}"
    m = _KILLED_RE.search(message)
    if not m:
        return message
    where = ("in code that runs when your program starts (the initialiser of a global variable, a "
             "static object's constructor) or in a host function the judge calls"
             if m.group("step") == "probe" else "in a kernel (a loop whose exit no thread reaches, "
             "a barrier some threads never arrive at) or in the host code it runs")
    return (f"your code did not finish within {m.group('s')} s and was stopped: look for a loop that "
            f"never ends or a wait that never returns {where}. The judge's own words: {message}")


def read_verdict(test: str, tier: str, rec: dict | None, note: str, fault: str = "") -> Verdict:
    if fault:                # the judge itself could not run: no record of it is a verdict
        return Verdict(test, tier, "fault", f"not graded: {fault}")
    if rec is None:
        why = note or "the judge gave no verdict for this test (missing evidence fails)"
        return Verdict(test, tier, "failed", f"not judged: {why}")
    status = rec.get("status")
    checks = rec.get("checks")
    msg = str(rec.get("message") or "")
    tier = str(rec.get("tier") or tier)
    if status not in STATUSES:
        return Verdict(test, tier, "failed", f"not judged: unknown status {status!r}")
    if status == "fault":
        return Verdict(test, tier, "fault", msg or "not graded: the judge could not run this test here")
    if status == "passed" and not (isinstance(checks, int) and checks > 0):
        return Verdict(test, tier, "failed", "not judged: a 'passed' record with no checks counts as failed")
    # "emulated": judged on the emulator (the judge's emulated twin, docs/dev/EMULATOR.md): only
    # `true`, and only of a GPU test (the judge's strict reader says the same: verdict.cpp).
    emulated = "emulated" in rec
    if emulated and (rec["emulated"] is not True or tier != "gpu"):
        return Verdict(test, tier, "failed", "not judged: a record whose 'emulated' is not true, or not of a GPU "
                                             "test, counts as failed")
    return Verdict(test, tier, status, msg, checks if isinstance(checks, int) else 0, emulated=emulated)


NOT_IN_RUN = "not judged: this run left the {} tier out (--tier {}); the grade is incomplete"


def grade_one(judge: Path, lab: str, source: Path | None, work: Path, *, student: str = "",
              expected: list[tuple[str, str]] | None = None, tier: str = "cpu",
              graded: bool = False, timeout: float = DEFAULT_GRADE_TIMEOUT_S,
              table: PointsTable | None = None, missing_note: str = "",
              extra_args: list[str] | None = None, variant: int | None = None,
              emulate_gpu: bool = False) -> LabResult:
    """Grade one kernel.cu for one lab in its own judge process; never trusts more than the
    judge's record. `expected` is the judge's list of ALL the lab's tests (every tier): those
    outside `tier` are kept as not judged (skipped), so that they stay in the maximum and the
    grade says it is incomplete. `work` must be a folder private to this one submission.
    `variant`: the student's variant of a lab with variants (banklab/grading/assigned.py decides
    it); None grades variant 0, the lab as written (never the one the file's own line names).
    `emulate_gpu` (with `graded`): the instructor lets the emulator judge the GPU tier where the
    machine has no usable GPU (the judge's --emulate-gpu; docs/dev/GRADER.md, "Without a GPU")."""
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    note = ""
    records: dict[str, dict] = {}
    sha = ""
    timed_out = False
    fault = ""               # the grading machine's problem (a crashed judge, a full disk): not graded
    if source is None:
        note = missing_note or f"no kernel.cu for lab {lab} was submitted"
    else:
        # The student's own variant of a lab that has variants (docs/dev/VARIANTS.md): --variant K.
        v_args, variant = variant_args(lab, variant)
        extra_args = [*(extra_args or []), *v_args] + (["--emulate-gpu"] if graded and emulate_gpu else [])
        records, note, fault, timed_out, sha = _run_judge(judge, lab, source, work, tier, graded, timeout,
                                                         extra_args)
    # Messages name files by the grader's private paths: show them relative to the work folder
    # (the student's file is then "kernel.cu", as on their own machine).
    for rec in records.values():
        if isinstance(rec.get("message"), str):
            rec["message"] = lead_with_cause(rec["message"].replace(str(work) + "/", ""))  # cleaned there
    verdicts = []
    seen = set()
    for test, t_tier in (expected or []):
        seen.add(test)
        if tier not in ("all", t_tier):
            verdicts.append(Verdict(test, t_tier, "skipped", NOT_IN_RUN.format(t_tier, tier)))
            continue
        verdicts.append(read_verdict(test, t_tier, records.get(test), note, fault))
    for test, rec in records.items():       # e.g. LabNN.Build, or tests the list did not give
        if test not in seen:
            verdicts.append(read_verdict(test, str(rec.get("tier") or "cpu"), rec, note))
    if not verdicts:
        verdicts.append(read_verdict(f"Lab{lab}.Judge", "cpu", None, note, fault))
    res = LabResult(student, lab, ORIGIN.get(source, str(source or "")) if source else "", sha, tier, verdicts,
                    fault or note, round(time.monotonic() - t0, 3), timed_out=timed_out,
                    ignored=list(IGNORED.get(source, [])), variant=variant if source else None)
    if table is not None:
        apply_points(res, table)
    return res


def variant_args(lab: str, variant: int | None) -> tuple[list[str], int | None]:
    """(--variant K, K) for a lab with variants (K = `variant`, or 0 when None), ([], None) otherwise:
    the one place a variant becomes the judge's arguments (grade-class, its Slurm tasks, the platforms
    all grade through grade_one). Always named, so that a file's own `// banklab variant:` line never
    decides which variant grades it."""
    found = banklab_labs.find_labs().get(lab)
    if not found or banklab_variants.read(found) is None:
        return [], None
    k = variant or 0
    return ["--variant", str(k)], k


def _run_judge(judge: Path, lab: str, source: Path, work: Path, tier: str, graded: bool, timeout: float,
               extra_args: list[str] | None) -> tuple[dict, str, str, bool, str]:
    """One `banklab-judge grade` of `source`: (its records, a note on why they are not used, a
    fault (the judge crashed, the disk is full: not graded), whether the outer timeout stopped
    it, the source's sha256)."""
    records: dict[str, dict] = {}
    note = fault = sha = ""
    timed_out = False
    try:
        # The judge reads a copy in our own folder: the student's folder is never written to.
        sha = sha256_of(source)
        judged = work / "kernel.cu"
        judged.write_bytes(source.read_bytes())
        # The verdict file goes to a fresh folder with a random name outside the work folder,
        # so that the student's host code (run by the judge's probe) cannot guess its path and
        # leave a forged one behind; it is read only when the judge itself exited 0 or 1.
        vdir = Path(tempfile.mkdtemp(prefix="banklab-verdict-"))
        out = vdir / "grade.json"
        cmd = judge_cmd(judge) + ["grade", "--lab", lab, "--source", str(judged),
                                  "--work", str(work / "judge"), "--json", str(out),
                                  "--tier", tier, REQUIRE_STEP_LIMITS] + list(extra_args or [])
        if graded:
            cmd.append("--graded")
        try:
            # One GPU of those this process sees, the least loaded (banklab.grading.gpus).
            with banklab_gpus.judge_env(env_for_grading(), tier) as env:
                rc, note = run_limited(cmd, timeout, work / "judge.log", env)
            timed_out = rc is None
            if rc is not None and rc not in (0, 1) and not STOPPING.is_set():
                fault = (f"the judge crashed (exit status {rc}; its log is judge.log in the work "
                         "folder): the grading machine's problem, not the student's")
                note = fault
            elif rc is not None:
                records, note = read_grade_file(out, lab, sha)
                if out.is_file():
                    shutil.copyfile(out, work / "grade.json")
        finally:
            shutil.rmtree(vdir, ignore_errors=True)
    except OSError as e:              # a full disk, a work folder that cannot be written
        fault = f"the grader could not write its work files ({e.strerror or e}): the grading machine's problem"
        note = fault
    return records, note, fault, timed_out, sha


