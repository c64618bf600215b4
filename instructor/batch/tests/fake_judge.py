#!/usr/bin/env python3
"""TEST DOUBLE of banklab-judge (docs/dev/GRADER.md): NOT a grader.

It speaks the judge's command line and writes contract-shaped verdict files so that the
batch grader, the reports and the platform scripts can be tested on a machine without the
real judge, and so that their fail-closed handling of a broken or forged judge output can be
tested at all. It judges nothing: what it reports is chosen by a marker line in the source,

    // FAKE-JUDGE: solved | stub | wrong <Suite.Test> | nocompile | hang | crash | forge | garbage | killtask
                   | quote | quotefault | bigwork

(no marker: the stub's behaviour; killtask: inside a Slurm job, cancels that job, as a node
that dies would end it; elsewhere a crash). quote: the build fails with a compiler's message that
quotes the rest of the file (after the marker's line) verbatim; quotefault: the build is a fault
whose message quotes it (the text a student's probe or compiler writes, in a judge's message);
bigwork: solved, with an 80 MB sparse file (its "probe") and a small one in the work folder.
Test names come from the real labs/NN_name/judge/test.cu files.

FAKE_JUDGE_ENV_LOG=FILE: each grade appends one JSON line to FILE: the CUDA_VISIBLE_DEVICES it was
started with (null when unset), its lab, the --variant it was given (null when none), whether it was
given --require-step-limits, its --graded and --emulate-gpu ("flags"), the sha256 of
the source it graded, and when it started and ended (time.time()), so that a
test can see which GPU each judge got and how many ran on each at once; FAKE_JUDGE_SECONDS=S makes
each grade last S seconds. FAKE_JUDGE_USABLE_GPU=ID: a judge started with CUDA_VISIBLE_DEVICES=ID
finds a usable GPU (its GPU tests judged: solved passes them, anything else fails them); with any
other GPU, or none, the GPU tests are not judged (a fault in graded mode), as on a GPU-less machine.
--graded --emulate-gpu where no GPU is usable: the GPU tests judged on the emulator, as the real
judge's twin records them ("emulated": true; a timed test skipped, "needs a GPU ...").
FAKE_JUDGE_NO_CGROUP=1: a machine where the judge can make no cgroup per step: a grade given
--require-step-limits (or --graded) is the real judge's refusal (its Build a fault, nothing judged).
"""

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
from banklab.lab import labs as banklab_labs   # noqa: E402
GPU_SKIP = "skipped: no CUDA device (cudaGetDeviceCount: error 35)"
GPU_FAULT = ("not graded: no GPU on this machine (no NVIDIA device or driver; CUDA: cudaErrorInsufficientDriver). "
             "Graded mode needs this test judged, and this machine cannot run it")
EMU_TIMING = ("needs a GPU: this test times kernels, and the emulator (test double) runs them but does not "
              "time them")
EXPLAIN = 'banklab explain --line "ld 4 ffffffff ' + " ".join(str(i * 128) for i in range(32)) + '"'


def tests_of(lab):
    """[(test, tier)] of lab NN: Lab.tests(), the one list, less the instructor-only checks (this
    double knows none: test_batch.lab_max)."""
    lab_ = banklab_labs.find_labs(ROOT).get(lab)
    if lab_ is None or not lab_.test.is_file():
        return []
    return [(t.full_name, t.tier) for t in lab_.tests() if t.kind != "instructor"]


def timed_of(lab):
    """The tests of lab NN that time kernels (the emulator skips them)."""
    lab_ = banklab_labs.find_labs(ROOT).get(lab)
    return {t.full_name for t in lab_.tests() if t.timed} if lab_ is not None and lab_.test.is_file() else set()


def record(lab, test, tier, status, checks, message=""):
    return {"schema": "banklab.verdict.v1", "lab": lab, "test": test, "tier": tier,
            "status": status, "checks": checks, "seconds": 0.001, "message": message}


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("sandbox")
    ls = sub.add_parser("list")
    ls.add_argument("--lab")
    g = sub.add_parser("grade")
    g.add_argument("--lab", required=True)
    g.add_argument("--source", required=True)
    g.add_argument("--work", required=True)
    g.add_argument("--json", required=True)
    g.add_argument("--graded", action="store_true")
    g.add_argument("--emulate-gpu", action="store_true")
    g.add_argument("--fresh-container", action="store_true")
    g.add_argument("--require-step-limits", action="store_true")   # grading that counts (GRADER.md)
    g.add_argument("--tier", default="all", choices=["cpu", "gpu", "all"])
    g.add_argument("--variant")   # a lab's per-student variant (docs/dev/VARIANTS.md)
    a = ap.parse_args()

    if os.environ.get("FAKE_JUDGE_FAIL_IF_ALLOWED") and "BANKLAB_ALLOW_UNCONFINED" in os.environ:
        print("fake judge: BANKLAB_ALLOW_UNCONFINED reached the judge", file=sys.stderr)
        return 99
    if a.cmd == "sandbox":      # FAKE_JUDGE_SANDBOX=none: a machine where the judge confines nothing
        if os.environ.get("FAKE_JUDGE_SANDBOX") == "none":
            print("no sandbox: bubblewrap does not run here (test double)")
            return 1
        if os.environ.get("FAKE_JUDGE_NO_CGROUP") == "1":
            print("sandbox: bwrap (test double), no cgroup (test double): memory and processes are limited per "
                  "process only")
            return 0
        print("sandbox: bwrap (test double)")
        return 0
    if a.cmd == "list":
        labs = [a.lab] if a.lab else list(banklab_labs.find_labs(ROOT))
        for lab in labs:
            for test, tier in tests_of(lab):
                print(f"{lab} {test} {tier}")
        return 0

    t_start = time.time()
    if os.environ.get("FAKE_JUDGE_SECONDS"):
        time.sleep(float(os.environ["FAKE_JUDGE_SECONDS"]))
    if os.environ.get("FAKE_JUDGE_ENV_LOG"):
        line = json.dumps({"cuda": os.environ.get("CUDA_VISIBLE_DEVICES"), "lab": a.lab, "tier": a.tier,
                           "variant": a.variant,
                           "require_step_limits": a.require_step_limits,
                           "flags": [f for f in ("--graded", "--emulate-gpu") if getattr(a, f[2:].replace("-", "_"))],
                           "source_sha256": hashlib.sha256(Path(a.source).read_bytes()).hexdigest(),
                           "start": t_start, "end": time.time()})
        with open(os.environ["FAKE_JUDGE_ENV_LOG"], "a") as f:
            f.write(line + "\n")
    src = Path(a.source).read_bytes()
    sha = hashlib.sha256(src).hexdigest()
    m = re.search(rb"FAKE-JUDGE:\s*(\w+)(?:[ \t]+(\S+))?", src)
    mode, arg = (m.group(1).decode(), (m.group(2) or b"").decode()) if m else ("stub", "")
    Path(a.work).mkdir(parents=True, exist_ok=True)
    tests = [(t, tier) for t, tier in tests_of(a.lab) if a.tier in ("all", tier)]
    lab = a.lab
    recs = []
    if os.environ.get("FAKE_JUDGE_NO_CGROUP") == "1" and (a.require_step_limits or a.graded):
        recs.append(record(lab, f"Lab{lab}.Build", "cpu", "fault", 1,
                           "the judge can make no cgroup per step here (test double), so nothing would limit the "
                           "memory and processes of your file's steps together, and grading that counts refuses "
                           "to run your file without that limit. Not graded: run the grader as root, or in "
                           "systemd-run --user --scope -p Delegate=yes COMMAND"))
        recs += [record(lab, t, tier, "failed", 0, "not judged: the lab did not build") for t, tier in tests]
        mode = "refused"
    if mode == "hang":
        time.sleep(3600)
    if mode == "killtask" and os.environ.get("SLURM_JOB_ID"):
        env = os.environ     # an array's task is ARRAYJOB_TASK (its own job id may be the array's)
        task = (f"{env['SLURM_ARRAY_JOB_ID']}_{env['SLURM_ARRAY_TASK_ID']}"
                if env.get("SLURM_ARRAY_TASK_ID") else env["SLURM_JOB_ID"])
        subprocess.run(["scancel", task], check=False)
        time.sleep(120)
    if mode in ("crash", "killtask"):
        os.abort()
    if mode == "garbage":
        Path(a.json).write_text('{"schema": "banklab.grade.v1", "verdicts": [')
        return 1
    quoted = src[src.find(b"\n") + 1:].decode("utf-8", "replace")     # the file after the marker's line
    if mode == "quote":
        recs.append(record(lab, f"Lab{lab}.Build", "cpu", "failed", 0, f"kernel.cu:2:1: error: {quoted}"))
        for t, tier in tests:
            recs.append(record(lab, t, tier, "failed", 0, "not judged: the lab did not build"))
    if mode == "quotefault":
        recs.append(record(lab, f"Lab{lab}.Build", "cpu", "fault", 0,
                           f"not graded: the judge's sandbox could not run your file's probe: {quoted}"))
    if mode == "bigwork":
        with open(Path(a.work) / "probe", "wb") as f:
            f.truncate(80 * 1000 * 1000)
        (Path(a.work) / "probe.log").write_text("probe: linked\n")
        mode = "solved"
    if mode == "nocompile":
        recs.append(record(lab, f"Lab{lab}.Build", "cpu", "failed", 0,
                           "kernel.cu:12:5: error: expected ';' before '}' token"))
        for t, tier in tests:
            recs.append(record(lab, t, tier, "failed", 0, "not judged: the lab did not build"))
    elif mode in ("quote", "quotefault", "refused"):
        pass
    elif mode == "forge":
        # What a cheat that got to write the judge's output file would leave: every test
        # "passed", zero checks, the hash of some other file.
        sha = hashlib.sha256(b"not the submission").hexdigest()
        for t, tier in tests:
            recs.append(record(lab, t, tier, "passed", 0))
    else:
        # The GPU check: a GPU is usable only where $FAKE_JUDGE_USABLE_GPU names the one
        # CUDA_VISIBLE_DEVICES gives this judge (what a test says works); anywhere else, none is.
        usable_gpu = bool(os.environ.get("FAKE_JUDGE_USABLE_GPU")) and \
            os.environ.get("CUDA_VISIBLE_DEVICES") == os.environ["FAKE_JUDGE_USABLE_GPU"]
        first_layout = next((t for t, _ in tests if ".Layout" in t or "Layout." in t), None)
        emulate, timed = a.graded and a.emulate_gpu and not usable_gpu, timed_of(lab)
        for t, tier in tests:
            if tier == "gpu" and usable_gpu:
                st = ("passed", 32, "") if mode == "solved" else ("failed", 32, "not the right result on the GPU")
            elif tier == "gpu" and emulate:     # the emulated twin's records
                st = (("skipped", 0, EMU_TIMING) if t in timed else ("passed", 32, "") if mode == "solved" else
                      ("failed", 32, "not the right result (on the emulator)"))
                recs.append(dict(record(lab, t, tier, *st), emulated=True))
                continue
            elif tier == "gpu":
                # graded mode: the real judge's `fault` (not judged, the machine's problem, not graded)
                st = ("fault", 0, GPU_FAULT) if a.graded else ("skipped", 0, GPU_SKIP)
            elif mode == "solved":
                st = ("passed", 32, "")
            elif mode == "wrong":
                st = ("failed", 32, f"lanes 0 and 16 ask bank 0 for words 0 and 32: 2 wavefronts, "
                                    f"minimum 1. Try an odd stride. See it: {EXPLAIN}") if t == arg else ("passed", 32, "")
            elif "Predictions." in t:
                st = ("failed", 1, "your prediction is -1 (the placeholder): answer it in "
                                   f"namespace lab{lab}::predict")
            elif t == first_layout:
                st = ("failed", 32, "lanes 0..31 ask bank 0 for 32 different words: 32 wavefronts, "
                                    f"minimum 1 (31 extra). Pad each row by one word. See it: {EXPLAIN}")
            else:
                st = ("passed", 32, "")
            recs.append(record(lab, t, tier, *st))
    Path(a.json).write_text(json.dumps({"schema": "banklab.grade.v1", "lab": lab, "source": a.source,
                                        "source_sha256": sha, "verdicts": recs}, indent=1))
    return 1 if any(r["status"] in ("failed", "fault") for r in recs) else 0


if __name__ == "__main__":
    sys.exit(main())
