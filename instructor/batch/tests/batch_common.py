"""What the batch tests share (one place): the course's paths, the judge's and Slurm's test doubles,
grade-class and grade-platform, and the reader of the CSV files grade-class writes. Not a test
module (unittest's discovery reads test*.py only)."""

import csv
import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
FAKE = HERE / "fake_judge.py"                  # the judge's test double
GRADE_CLASS = HERE.parent / "grade-class"
PLATFORM = ROOT / "instructor" / "platforms" / "grade-platform"


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def fake_slurm_env(tmp: Path, cancel: str = "") -> dict:
    """An environment whose sbatch, squeue, sacct, scontrol and scancel are fake_slurm.py (its state
    under `tmp`); `cancel`: the student whose task the fake cluster cancels."""
    bin_ = tmp / "slurm-bin"
    bin_.mkdir(exist_ok=True)
    for cmd in ("sbatch", "squeue", "sacct", "scontrol", "scancel"):
        link = bin_ / cmd
        if not link.exists():
            link.symlink_to(HERE / "fake_slurm.py")
    return dict(os.environ, PATH=f"{bin_}:{os.environ['PATH']}", FAKE_SLURM_DIR=str(tmp / "slurm-state"),
                FAKE_SLURM_CANCEL=cancel)
