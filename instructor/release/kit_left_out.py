#!/usr/bin/env python3
"""The instructor's kit stays out of the student release: a rule of one room.

  instructor/release/kit_left_out.py RELEASE [--course ROOT]

The kit is one room, instructor/ (the batch grader, the platforms, make-release and this check,
labs-check). The release is checked for three things:
  1. instructor-only.txt leaves the whole room out (its pattern instructor/);
  2. no file that git tracks under instructor/ is in RELEASE;
  3. no file of RELEASE names a path of the kit as a path of the release (instructor/batch/...,
     "instructor" / "batch", ...): the release runs, imports and points to nothing that is not
     there. A path inside another checkout (grade.yml's grader/instructor/platforms/..., the
     instructor's grader repository) is not one. Left as they are, each for its reason
     (NAMES_THE_KIT_ON_PURPOSE): the developers' guide and the benchmarks of the kit itself.
Exit 0 when all hold, 1 with one line per problem.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

KIT = "instructor/"
# Files of the release that name the kit's paths on purpose, and why.
NAMES_THE_KIT_ON_PURPOSE = {
    "docs/dev/": "the developers' guide describes the whole course repository (make-release's DESCRIBES_EXCLUSIONS)",
    "bench/batch_throughput.py": "measures the batch grader",
    "bench/gpu_throughput.py": "measures the batch grader on GPUs",
    "bench/device_throughput_table.sh": "runs bench/gpu_throughput.py",
    "bench/experiments/lock_scope/device_lock_scope.sh": "runs bench/gpu_throughput.py",
    "bench/experiments/grader_landing/": "a dated experiment on the batch grader and the platforms",
    "python/banklab/grading/slurm.py": "a Slurm task runs grade-class by its path (grade-class could hand it its own path)",
}


def kit_entries(course: Path) -> list[str]:
    """The first names under instructor/ that git tracks (batch, platforms, make-release, ...)."""
    out = subprocess.run(["git", "-C", str(course), "ls-files", "-z", "--", KIT], check=True,
                         capture_output=True).stdout.decode()
    return sorted({f[len(KIT):].split("/", 1)[0] for f in out.split("\0") if f})


def naming_res(entries: list[str]) -> list[re.Pattern]:
    alt = "|".join(re.escape(e) for e in entries)
    return [re.compile(r"(?<![\w./-])instructor/(?:%s)(?![\w.-])" % alt),               # instructor/batch/...
            re.compile(r"(?:\}|\$\w+|\))/instructor/(?:%s)(?![\w.-])" % alt),            # ${ROOT}/instructor/..., $root/...
            re.compile(r"""["']instructor["']\s*[,/]\s*["'](?:%s)["']""" % alt)]   # "instructor" / "batch"


def on_purpose(rel: str) -> bool:
    return any(rel == k or (k.endswith("/") and rel.startswith(k)) for k in NAMES_THE_KIT_ON_PURPOSE)


def check(release: Path, course: Path) -> list[str]:
    bad = []
    listed = [l.split("#", 1)[0].strip() for l in (course / KIT / "release" / "instructor-only.txt").read_text().splitlines()]
    if KIT not in listed:
        bad.append(f"instructor/release/instructor-only.txt does not leave {KIT} out (the kit's room)")
    tracked = subprocess.run(["git", "-C", str(course), "ls-files", "-z", "--", KIT], check=True,
                             capture_output=True).stdout.decode().split("\0")
    bad += [f"{f}: a file of the kit is in the release" for f in tracked if f and (release / f).exists()]
    res = naming_res(kit_entries(course))
    for f in sorted(release.rglob("*")):
        rel = f.relative_to(release).as_posix()
        if not f.is_file() or rel.startswith(".git/") or on_purpose(rel):
            continue
        try:
            text = f.read_text()
        except (UnicodeDecodeError, OSError):
            continue
        for n, line in enumerate(text.splitlines(), 1):
            for r in res:
                m = r.search(line)
                if m:
                    bad.append(f"{rel}:{n}: names the kit ({m.group(0)}), which the release leaves out")
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("release", type=Path)
    ap.add_argument("--course", type=Path, default=Path(__file__).resolve().parents[2])
    a = ap.parse_args()
    if not a.release.is_dir():
        print(f"kit_left_out: no release at {a.release}", file=sys.stderr)
        return 2
    bad = check(a.release.resolve(), a.course.resolve())
    for b in bad:
        print(b)
    print(f"kit_left_out: {len(bad)} problem(s) in {a.release}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
