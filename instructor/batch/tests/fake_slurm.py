#!/usr/bin/env python3
"""TEST DOUBLE of Slurm's sbatch, squeue, sacct, scontrol and scancel (called by the name it is
linked as): NOT a scheduler. sbatch runs every task of the array at once, one after another, on
this machine, before it returns; squeue then lists nothing (the array has ended) and sacct gives
each task's end state. A task whose shard holds a student named in $FAKE_SLURM_CANCEL (comma
list) is not run and ends CANCELLED, as a task cancelled by an administrator or a node that died.
`sbatch --hold` queues the array without running it: squeue lists its tasks PENDING (JobHeldUser)
until `scontrol release JOB` runs them (as sbatch would have). $FAKE_SLURM_GPUS: the GPU each
array's tasks are given (_gpu_of_array), e.g. one CUDA cannot open, then a usable one. State lives in $FAKE_SLURM_DIR. Lets tests/test_faults.py check what grade-class --engine slurm
does with a cancelled task without a cluster (tests/test_slurm.py does it on a real one)."""

import json
import os
import subprocess
import sys
from pathlib import Path

STATE = Path(os.environ.get("FAKE_SLURM_DIR", "/tmp/fake-slurm"))


def sbatch(args: list[str]) -> int:
    STATE.mkdir(parents=True, exist_ok=True)
    counter = STATE / "next-job"
    job = int(counter.read_text()) if counter.is_file() else 1000
    counter.write_text(str(job + 1))
    if "--hold" in args:
        (STATE / f"{job}.held").write_text(json.dumps(args))
    else:
        run(job, args)
    print(job)
    return 0


def run(job: int, args: list[str]) -> None:
    array = next(a.split("=", 1)[1] for a in args if a.startswith("--array="))
    output = next(a.split("=", 1)[1] for a in args if a.startswith("--output="))
    script = args[-1]
    last = int(array.split("-", 1)[1].split("%")[0])
    shards = json.loads((Path(script).parent / "manifest.json").read_text())["shards"]
    cancel = {s for s in os.environ.get("FAKE_SLURM_CANCEL", "").split(",") if s}
    states = {}
    for t in range(last + 1):
        log = Path(output.replace("%a", str(t)))
        if any(it["student"] in cancel for it in shards[t]):
            log.write_text(f"slurmstepd: *** JOB {job}_{t} CANCELLED (test double) ***\n")
            states[t] = ("CANCELLED", "0:15")
            continue
        env = dict(os.environ, SLURM_JOB_ID=str(job), SLURM_ARRAY_JOB_ID=str(job), SLURM_ARRAY_TASK_ID=str(t))
        gpu = _gpu_of_array(job, args)
        if gpu is not None:
            env["CUDA_VISIBLE_DEVICES"] = gpu
        with open(log, "w") as out:
            rc = subprocess.run(["sh", script], stdout=out, stderr=subprocess.STDOUT, env=env).returncode
        states[t] = ("COMPLETED" if rc == 0 else "FAILED", f"{rc}:0")
    (STATE / f"{job}.json").write_text(json.dumps(states))


def _gpu_of_array(job: int, args: list[str]) -> str | None:
    """The GPU a task of this array is given, as Slurm's gres sets CUDA_VISIBLE_DEVICES, where the
    array asks for one (--gres=gpu...) and $FAKE_SLURM_GPUS names them: a comma list, the first
    array's tasks get its first entry, the next array's (a retry) the second, and so on, the last
    one repeated. Without $FAKE_SLURM_GPUS: None (the environment as it is)."""
    gpus = [g for g in os.environ.get("FAKE_SLURM_GPUS", "").split(",") if g]
    if not gpus or not any(a.startswith("--gres=gpu") for a in args):
        return None
    n_file = STATE / "gpu-arrays"
    n = int(n_file.read_text()) if n_file.is_file() else 0
    n_file.write_text(str(n + 1))
    return gpus[min(n, len(gpus) - 1)]


def squeue(args: list[str]) -> int:
    """A held array's tasks (PENDING, JobHeldUser) in the format grade-class asks for; nothing
    for an array that has run."""
    held = STATE / f"{args[args.index('-j') + 1]}.held"
    if held.is_file():
        array = next(a.split("=", 1)[1] for a in json.loads(held.read_text()) if a.startswith("--array="))
        for t in range(int(array.split("-", 1)[1].split("%")[0]) + 1):
            print(f"{t}|PENDING|JobHeldUser")
    return 0


def scontrol(args: list[str]) -> int:
    """`scontrol release JOB` runs a held array; anything else does nothing."""
    if args[:1] == ["release"]:
        held = STATE / f"{args[1]}.held"
        if held.is_file():
            run(int(args[1]), json.loads(held.read_text()))
            held.unlink()
    return 0


def sacct(args: list[str]) -> int:
    job = args[args.index("-j") + 1]
    f = STATE / f"{job}.json"
    for t, (state, code) in (json.loads(f.read_text()) if f.is_file() else {}).items():
        print(f"{job}_{t}|{state}|fakenode|{code}")
    return 0


def main() -> int:
    name, args = Path(sys.argv[0]).name, sys.argv[1:]
    if name == "sbatch":
        return sbatch(args)
    if name == "sacct":
        return sacct(args)
    if name == "squeue":
        return squeue(args)
    if name == "scontrol":
        return scontrol(args)
    return 0          # scancel: nothing to do


if __name__ == "__main__":
    sys.exit(main())
