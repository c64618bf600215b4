#!/usr/bin/env python3
"""The class bench/device_slurm_gpu.sh grades with both engines, and the comparison of their outputs.

  slurm_gpu_class.py make SUBS [LAB ...]     SUBS/solved/NN_name.cu (each lab's solution),
                                             SUBS/stub/NN_name.cu (its stub), SUBS/bad/NN_name.cu (the
                                             lab's first known-bad case whose EXPECT_FAIL names a GPU
                                             test, not a hang nor a race; labs without one have none)
  slurm_gpu_class.py compare LOCAL SLURM [--md FILE] [--secs LOCAL_S SLURM_S]
                                             one row per (student, lab): each engine's verdicts
                                             (tests passed / failed / not judged, points) and whether
                                             they are equal; then gradebook.csv and lms.csv, file
                                             for file. Exit 0 when everything is equal.
Python 3 standard library (and the course's grader/selftest/materialize.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "grader" / "selftest"))


def lab_dirs(labs: list[str]) -> dict[str, str]:
    out = {}
    for d in sorted((ROOT / "solutions").iterdir()):
        if d.is_dir() and d.name[:2].isdigit() and (not labs or d.name[:2] in labs):
            out[d.name[:2]] = d.name
    return out


def gpu_bad_case(lab_dir: str) -> Path | None:
    """The lab's first known-bad case that a GPU test must catch (EXPECT_FAIL LabNNOnGpu...), not a hang."""
    for c in sorted((ROOT / "solutions" / lab_dir / "cases" / "bad").glob("*.patch")):
        head = [l for l in c.read_text().splitlines()[:20] if l.startswith("//")]
        fails = [l for l in head if "EXPECT_FAIL:" in l]
        # Not a hang (the watchdog's 20 s), not a race only a tool sees every time (EXPECT_TOOL).
        if "hang" not in c.stem and not any("EXPECT_TOOL:" in l for l in head) and any("OnGpu" in l for l in fails):
            return c
    return None


def make(subs: Path, labs: list[str]) -> int:
    import materialize   # noqa: E402  (grader/selftest: a case as the kernel.cu it stands for)
    for lab, d in lab_dirs(labs).items():
        for who, src in (("solved", ROOT / "solutions" / d / "kernel.cu"), ("stub", ROOT / "labs" / d / "kernel.cu")):
            p = subs / who / f"{d}.cu"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(src.read_text())
        c = gpu_bad_case(d)
        if c is not None:
            p = subs / "bad" / f"{d}.cu"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(materialize.materialize(materialize.load_case(str(c)), str(ROOT / "solutions" / d)))
            print(f"bad lab {lab}: {c.relative_to(ROOT)}")
        else:
            print(f"bad lab {lab}: none (no known-bad case a GPU test catches)")
    return 0


def summary(path: Path) -> dict:
    """One result's verdicts as the gradebook counts them."""
    try:
        d = json.loads(path.read_text())
    except (OSError, ValueError):
        return {"text": "no result", "key": None}
    v = d.get("verdicts", [])
    st = {}
    for x in v:
        st[x["status"]] = st.get(x["status"], 0) + 1
    gpu_failed = sorted(x["test"] for x in v if x.get("tier") == "gpu" and x["status"] == "failed")
    faults = sorted({x.get("message", "")[:60] for x in v if x["status"] == "fault"})
    pts = d.get("points")
    text = (f"{st.get('passed', 0)} passed, {st.get('failed', 0)} failed, "
            f"{st.get('skipped', 0) + st.get('fault', 0)} not judged; {pts if pts is not None else '-'} / "
            f"{d.get('max_points', '-')}")
    if faults:
        text += " NOT GRADED"
    key = sorted((x["test"], x["status"]) for x in v), pts
    return {"text": text, "key": key, "gpu_failed": gpu_failed, "faults": faults}


def compare(local: Path, slurm: Path, md: Path | None, secs: list[str] | None) -> int:
    rows, same_all = [], True
    files = sorted({p.relative_to(local / "results") for p in (local / "results").glob("*/lab*.json")} |
                   {p.relative_to(slurm / "results") for p in (slurm / "results").glob("*/lab*.json")})
    for rel in files:
        a, b = summary(local / "results" / rel), summary(slurm / "results" / rel)
        same = a["key"] is not None and a["key"] == b["key"]
        same_all &= same
        gf = ", ".join(t.split(".", 1)[1] for t in a.get("gpu_failed", [])) or "none"
        rows.append(f"| {rel.parent} | {rel.stem[3:]} | {a['text']} | {b['text']} | {gf} | {'yes' if same else 'NO'} |")
    lines = [f"| student | lab | local engine | --engine slurm | GPU tests failed (local) | equal |",
             "|---|---|---|---|---|---|"] + rows + [""]
    for f in ("gradebook.csv", "lms.csv"):
        try:
            eq = (local / f).read_bytes() == (slurm / f).read_bytes()
        except OSError as e:
            eq = False
            lines.append(f"{f}: missing ({e})")
        same_all &= eq
        lines.append(f"- {f}: {'identical' if eq else 'DIFFERENT'} (local against slurm, byte for byte)")
    fb = sorted(p.relative_to(local) for p in local.glob("feedback/**/*") if p.is_file())
    differ = [str(p) for p in fb if not (slurm / p).is_file() or (slurm / p).read_bytes() != (local / p).read_bytes()]
    lines.append(f"- feedback files: {len(fb) - len(differ)} of {len(fb)} identical"
                 + (f" (differ: {', '.join(differ[:6])}{' ...' if len(differ) > 6 else ''}; measured times "
                    "in a GPU test's message may differ run to run)" if differ else ""))
    if secs:
        n = len(files)
        ls, ss = float(secs[0]), float(secs[1])
        lines.append(f"- {n} submissions: local engine {ls:.0f} s ({ls / max(n, 1):.1f} s a submission), "
                     f"--engine slurm {ss:.0f} s ({ss / max(n, 1):.1f} s a submission)")
    lines.append(f"- verdicts and gradebooks: {'EQUAL' if same_all else 'NOT EQUAL'}")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if md:
        md.write_text(text)
    return 0 if same_all else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("subs", type=Path)
    m.add_argument("labs", nargs="*")
    c = sub.add_parser("compare")
    c.add_argument("local", type=Path)
    c.add_argument("slurm", type=Path)
    c.add_argument("--md", type=Path)
    c.add_argument("--secs", nargs=2)
    a = ap.parse_args()
    if a.cmd == "make":
        return make(a.subs, a.labs)
    return compare(a.local, a.slurm, a.md, a.secs)


if __name__ == "__main__":
    sys.exit(main())
