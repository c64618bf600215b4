"""Every GPU of the node: which GPUs grade-class (and a Slurm task) sees, and which one each judge
it starts gets.

The GPUs seen are those CUDA_VISIBLE_DEVICES names when it is set (Slurm sets it for a task that
asked for GPUs: --gres=gpu:N, --gpus-per-task=N), else those `nvidia-smi -L` lists (by UUID, so that
the judge and nvidia-smi never disagree on the order; a GPU split into MIG instances is seen as
its instances). No GPU library is loaded. With two or more, each judge is started with
CUDA_VISIBLE_DEVICES naming one of them: the one with the fewest judges running, then the one
given fewest so far (so -j N over G GPUs keeps at most ceil(N / G) judges on each); the judge's
per-GPU lock (grader/gpu/gpu_lock.hpp, by UUID) keeps each GPU's timed runs one at a time. With
one GPU or none, nothing changes: the judge gets this process's environment as it is.
Python 3 standard library.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import threading
from typing import Iterator

#: What CUDA_VISIBLE_DEVICES holds where no GPU was given (Slurm's old "NoDevFiles", CUDA's -1).
_NO_GPU = ("", "-1", "nodevfiles", "none")
_UUID = re.compile(r"\(UUID:\s*((?:GPU|MIG)-[^)\s]+)\)")


def from_visible_devices(value: str) -> list[str]:
    """The GPUs a CUDA_VISIBLE_DEVICES value names, in its order ([] for none)."""
    if value.strip().lower() in _NO_GPU:
        return []
    out = []
    for item in value.split(","):
        item = item.strip()
        if not item or item == "-1":       # CUDA ignores everything from an invalid entry on
            break
        out.append(item)
    return out


def from_nvidia_smi(text: str) -> list[str]:
    """The GPUs `nvidia-smi -L` lists, by UUID: a GPU's MIG instances instead of the GPU itself
    (CUDA can use only those of a GPU in MIG mode)."""
    gpus: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        m = _UUID.search(line)
        if not m:
            continue
        if line.lstrip().startswith("GPU "):
            gpus.append((m.group(1), []))
        elif line.lstrip().startswith("MIG ") and gpus:
            gpus[-1][1].append(m.group(1))
    return [u for gpu, migs in gpus for u in (migs or [gpu])]


def discover(environ: dict | None = None, timeout: float = 20) -> list[str]:
    """The GPUs this process may use: CUDA_VISIBLE_DEVICES when set, else `nvidia-smi -L`'s
    ([] when nvidia-smi is missing, fails or does not answer in `timeout` s)."""
    env = os.environ if environ is None else environ
    if "CUDA_VISIBLE_DEVICES" in env:
        return from_visible_devices(env["CUDA_VISIBLE_DEVICES"])
    try:
        r = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL, env=dict(env))
    except (OSError, subprocess.TimeoutExpired):
        return []
    return from_nvidia_smi(r.stdout) if r.returncode == 0 else []


class GpuPool:
    """Hands each judge one GPU of `gpus`: the least loaded (judges running), then the least
    used (judges given), then the first. Thread-safe (grade-class's pool of -j workers)."""

    def __init__(self, gpus: list[str]):
        self.gpus = list(gpus)
        self.running = [0] * len(self.gpus)
        self.given = [0] * len(self.gpus)
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def one(self) -> Iterator[str | None]:
        """The GPU for one judge while it runs (None: leave the environment as it is)."""
        if len(self.gpus) < 2:
            yield None
            return
        with self._lock:
            i = min(range(len(self.gpus)), key=lambda k: (self.running[k], self.given[k], k))
            self.running[i] += 1
            self.given[i] += 1
        try:
            yield self.gpus[i]
        finally:
            with self._lock:
                self.running[i] -= 1


_POOL: GpuPool | None = None
_POOL_LOCK = threading.Lock()


def pool() -> GpuPool:
    """This process's pool, made on first use from discover()."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = GpuPool(discover())
        return _POOL


@contextlib.contextmanager
def judge_env(env: dict, tier: str) -> Iterator[dict]:
    """`env` for one judge run of `tier`: with CUDA_VISIBLE_DEVICES naming one GPU where this
    process sees several and the run has GPU tests; `env` unchanged otherwise."""
    if tier == "cpu":
        yield env
        return
    with pool().one() as gpu:
        yield env if gpu is None else {**env, "CUDA_VISIBLE_DEVICES": gpu}


def slurm_task_jobs(tier: str, environ: dict | None = None) -> int:
    """Judges at once in a Slurm task: for the CPU tier the CPUs it was given; for the GPU tiers at
    least one per GPU it was given (each GPU's lock keeps the timed runs apart), more where it was
    given more CPUs (--cpus-per-task: the builds run on them)."""
    env = os.environ if environ is None else environ
    cpus = max(1, int(env.get("SLURM_CPUS_PER_TASK") or 1))
    if tier == "cpu":
        return cpus
    return max(cpus, len(discover(env)), 1)
