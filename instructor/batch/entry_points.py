#!/usr/bin/env python3
"""Issue 45's families through every entry point: the case that proves each, run through
`banklab-judge grade`, ctest, grade-class (local, and a Slurm task), Gradescope's and
PrairieLearn's adapters, as root and as a normal user, with bubblewrap; the table it writes is
docs/perf/issue45_entry_points.md (generated: the date and the machine in its head).

  instructor/batch/entry_points.py --judge build/selftest/grader/banklab-judge --root . --out FILE [--ctest ctest]

Lab 05 (its stub and the course's cases for it), CPU tier. As root a normal user is made
(useradd, `banklab-entry`, no home, no shell) and every entry point runs again as it (setpriv);
as a normal user the root cells are skipped with their reason. A Slurm task needs a controller
that answers (.ci/run starts one as root: instructor/batch/tests/slurm-single-node); without one
its cells are skipped, saying why. The GPU family (no state between launches) runs on the device
only: its cells say so and name the command. Every entry point is started with a key planted in
its session keyring (the caller's secret the keys case looks for).

Grading that counts needs whole-step limits (issue 45): `banklab-judge grade` runs as every grader
runs it (--require-step-limits), and grade-class, a Slurm task and both adapters pass it. Where a
judge has no cgroup per step (a normal user on cgroup v1, or on v2 without a delegated cgroup), each
of those cells must be "refused, not graded" (entry_cases.refused_for_step_limits); ctest (a
student's own build) still grades, with per-process limits, and must say so.

Exit status: 0 when every cell that ran holds, 1 when one does not (the table says which), 2 on
bad arguments. Standard library only (and the course's own modules)."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import runpy

HERE = Path(__file__).resolve().parent
runpy.run_path(str(HERE.parents[1] / "python" / "banklab_run.py"))  # banklab's path, set in one place

from banklab.files import load_file  # noqa: E402
mz = load_file(HERE.parents[1] / "grader" / "selftest" / "materialize.py")
ec = load_file(HERE / "entry_cases.py")

LAB, FOLDER = "05", "05_swizzle"
USER = "banklab-entry"
# The children's Python and PATH: the system's, which a normal user can run too.
PY = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


class Who:
    """Who runs an entry point: root, or the normal user (through setpriv, with its own HOME)."""

    def __init__(self, name: str, base: Path, uid: int, gid: int):
        self.name, self.uid, self.gid = name, uid, gid
        self.dir = base / name
        self.dir.mkdir()
        self.own(self.dir)

    def own(self, *paths: Path):
        if os.geteuid() == 0 and self.uid != 0:
            for p in paths:
                os.chown(p, self.uid, self.gid)

    def tree(self, d: Path) -> Path:
        d.mkdir(parents=True, exist_ok=True)
        p = d
        while p != self.dir and self.dir in p.parents:
            self.own(p)
            p = p.parent
        return d

    def write(self, path: Path, data: bytes) -> Path:
        self.tree(path.parent)
        path.write_bytes(data)
        self.own(path)
        return path

    def run(self, cmd: list, env: dict | None = None, timeout: float = 600) -> tuple[int, str, float]:
        """cmd as this user, with SECRET planted in a fresh session keyring of its own."""
        prefix = []
        if os.geteuid() == 0 and self.uid != 0:
            prefix = ["setpriv", f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups", "--"]
        e = {"PATH": PATH, "HOME": str(self.dir), "LANG": "C.UTF-8",
             "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
        t0 = time.monotonic()
        try:
            r = subprocess.run(prefix + [PY, "-c", ec.PLANT_KEY, ec.SECRET] + [str(c) for c in cmd],
                               env=e, cwd=self.dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, timeout=timeout)
            return r.returncode, r.stdout.decode("utf-8", "replace"), time.monotonic() - t0
        except subprocess.TimeoutExpired:
            return -1, f"timed out after {timeout} s", time.monotonic() - t0


def normal_user() -> tuple[int, int, str]:
    """(uid, gid, "") of the normal user the user cells run as, else (-1, -1, why not)."""
    if os.geteuid() != 0:
        return os.geteuid(), os.getegid(), ""
    if shutil.which("setpriv") is None:
        return -1, -1, "setpriv (util-linux) is not installed"
    if subprocess.run(["id", "-u", USER], capture_output=True).returncode != 0:
        r = subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", "--user-group", USER],
                           capture_output=True, text=True)
        if r.returncode != 0:
            return -1, -1, f"useradd {USER} failed: {r.stderr.strip()[:200]}"
    uid = int(subprocess.run(["id", "-u", USER], capture_output=True, text=True).stdout)
    gid = int(subprocess.run(["id", "-g", USER], capture_output=True, text=True).stdout)
    return uid, gid, ""


def user_cannot_reach(uid: int, gid: int, a) -> str:
    """Why the normal user cannot run the judge or read the course here ("" when it can)."""
    if os.geteuid() != 0 or uid == os.geteuid():
        return ""
    need = [a.judge, a.root / "labs" / FOLDER / "kernel.cu", a.root / "instructor" / "batch" / "grade-class"]
    r = subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--", "sh", "-c",
                        " && ".join(f"test -r '{p}'" for p in need) + f" && test -x '{a.judge}'"], capture_output=True)
    return "" if r.returncode == 0 else f"user {USER} cannot run the judge or read the course here ({need[0]}, {need[1]})"


def tree_text(d: Path, skip: str = "") -> str:
    out = []
    for p in sorted(d.rglob("*")):
        if p.is_file() and not p.is_symlink() and not (skip and skip in p.parts):
            out.append(f"==> {p.name}\n" + p.read_bytes().decode("utf-8", "replace"))
    return "\n".join(out)


def build_of(grade: dict) -> str:
    return next((v.get("status", "?") for v in grade.get("verdicts", []) if v.get("test") == f"Lab{LAB}.Build"), "none")


def faults(grade: dict) -> int:
    return sum(v.get("status") == "fault" for v in grade.get("verdicts", []))


def read_json(p: Path) -> dict:
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return {}


# ---- the entry points: each grades every case's file and says, per case, what it saw ----------
# A record: graded (True/False), build (the Build record's status, or "" where the entry point
# shows none), text (everything it printed and wrote for the case), probe (the probe's log, "" if
# none), secs, keep (the kept work folder's size and note; grade-class only).

def rec(graded, build, text, probe, secs, keep=None) -> dict:
    return {"graded": graded, "build": build, "text": text, "probe": probe, "secs": secs, "keep": keep}


def judge_grade(a, who: Who, files: dict) -> dict:
    out = {}
    for name, data in files.items():
        d = who.tree(who.dir / "judge" / name)
        src = who.write(d / "kernel.cu", data)
        rc, shown, secs = who.run([a.judge, "grade", "--lab", LAB, "--source", src, "--work", d / "work",
                                   "--json", d / "grade.json", "--tier", "cpu", "--require-step-limits"])
        g = read_json(d / "grade.json")
        graded = rc == 0 and bool(g) and not faults(g) and "NOT GRADED" not in shown
        out[name] = rec(graded, build_of(g), shown + ec.read(d / "grade.json"), ec.read(d / "work" / "probe.log"), secs)
    return out


def ctest(a, who: Who, files: dict) -> dict:
    """What `ctest --preset lab05` runs (cmake/BanklabLab.cmake): lab05.build, then tests fixed on
    it (the first two CPU tests: the build is what the families are about), through ctest itself
    (--output-on-failure, as a student runs it)."""
    tests = [l.split()[1] for l in subprocess.run([a.judge, "list", "--lab", LAB], capture_output=True,
                                                   text=True).stdout.splitlines() if l.endswith(" cpu")][:2]
    out = {}
    for name, data in files.items():
        d = who.tree(who.dir / "ctest" / name)
        src = who.write(d / "labs" / FOLDER / "kernel.cu", data)
        work, results = who.tree(d / "judge"), who.tree(d / "results")
        lines = [f'add_test(lab{LAB}.build "{a.judge}" build --lab {LAB} --source "{src}" --work "{work}" '
                 f'--results "{results}")',
                 f"set_tests_properties(lab{LAB}.build PROPERTIES FIXTURES_SETUP b)"]
        for t in tests:
            lines += [f'add_test(lab{LAB}.{t} "{a.judge}" test --lab {LAB} --work "{work}" --test {t} '
                      f'--results "{results}")', f"set_tests_properties(lab{LAB}.{t} PROPERTIES FIXTURES_REQUIRED b)"]
        who.write(d / "CTestTestfile.cmake", ("\n".join(lines) + "\n").encode())
        rc, shown, secs = who.run([a.ctest, "--test-dir", d, "--output-on-failure", "-j", "2"])
        build = read_json(results / f"lab{LAB}" / f"Lab{LAB}.Build.json")
        graded = bool(build) and build.get("status") != "fault" and "Not judged" not in shown
        out[name] = rec(graded, build.get("status", "none"), shown + tree_text(results),
                        ec.read(work / "probe.log"), secs)
    return out


def class_run(a, who: Who, files: dict, engine: str) -> dict:
    d = who.tree(who.dir / f"class-{engine}")
    for name, data in files.items():
        who.write(d / "subs" / name / "kernel.cu", data)
    args = [PY, a.root / "instructor" / "batch" / "grade-class", d / "subs", "--out", d / "out",
            "--lab", LAB, "--judge", a.judge, "--tier", "cpu", "--keep-work", "--timeout", "300"]
    args += ["-j", "2"] if engine == "local" else ["--engine", "slurm", "--slurm-poll", "1", "--slurm-shard", "2"]
    rc, shown, secs = who.run(args, timeout=900)
    out, book = {}, tree_text(d / "out", skip="work")
    not_graded = ec.read(d / "out" / "not-graded.csv")
    for name in files:
        g = read_json(d / "out" / "results" / name / f"lab{LAB}.json")
        graded = rc in (0, 1) and bool(g) and not faults(g) and f"\n{name}," not in "\n" + not_graded
        kept = d / "out" / "work" / name
        size = sum(p.stat().st_size for p in kept.rglob("*") if p.is_file()) if kept.is_dir() else -1
        note = next((ec.read(p) for p in kept.rglob("NOT-KEPT.txt")), "") if kept.is_dir() else ""
        out[name] = rec(graded, build_of(g), shown + book, ec.read(kept / f"lab{LAB}" / "judge" / "probe.log"),
                        secs, keep=(size, note, rc))
    return out


def grade_class(a, who, files):
    return class_run(a, who, files, "local")


def slurm_task(a, who, files):
    return class_run(a, who, files, "slurm")


def platform_run(a, who: Who, files: dict, which: str) -> dict:
    out = {}
    for name, data in files.items():
        root = who.tree(who.dir / which / name)
        env = {"BANKLAB_JUDGE": str(a.judge), "BANKLAB_LAB": LAB, "BANKLAB_GRADE_ARGS": "--tier cpu",
               "BANKLAB_SOURCE": str(a.root)}
        if which == "gradescope":
            who.write(root / "submission" / "kernel.cu", data)
            env["AUTOGRADER_ROOT"] = str(root)
        else:
            who.write(root / "student" / "kernel.cu", data)
            who.write(root / "data" / "data.json",
                      json.dumps({"params": {"banklab_lab": LAB, "banklab_variant": 0}}).encode())
            env["PL_GRADE_ROOT"] = str(root)
        entry = a.root / "instructor" / "platforms" / which / ("run_autograder" if which == "gradescope" else "run")
        rc, shown, secs = who.run(["bash", entry], env=env)
        res = read_json(root / "results" / "results.json")
        build = ""
        if which == "gradescope":  # a fault: no results.json (Gradescope shows the run failed), a file beside it
            graded = bool(res) and "score" in res and not res.get("extra_data", {}).get("banklab_not_graded")
        else:  # a fault: succeeded false, "the grading machine could not judge"; a build that failed is the
            # file's, a format error (gradable false: PrairieLearn shows it and does not count the attempt)
            graded = bool(res) and res.get("succeeded") is not False and "could not judge" not in json.dumps(res)
            build = "failed" if "did not compile" in json.dumps(res.get("format_errors", [])) else ""
        out[name] = rec(graded, build, shown + tree_text(root / "results", skip="work"),
                        ec.read(root / "results" / "work" / f"lab{LAB}" / "judge" / "probe.log"), secs)
    return out


def gradescope(a, who, files):
    return platform_run(a, who, files, "gradescope")


def prairielearn(a, who, files):
    return platform_run(a, who, files, "prairielearn")


# Run as the normal user too (the platforms run their adapters as root in their containers: those
# are root's cells only).
AS_USER = ("banklab-judge grade", "ctest", "grade-class", "Slurm task")
# Grading that counts (--require-step-limits): refused where the judge has no cgroup per step. ctest is
# a student's own build.
GRADING = ("banklab-judge grade", "grade-class", "Gradescope (run_autograder)", "PrairieLearn (run)", "Slurm task")
ENTRIES = {"banklab-judge grade": judge_grade, "ctest": ctest, "grade-class": grade_class,
           "Gradescope (run_autograder)": gradescope, "PrairieLearn (run)": prairielearn, "Slurm task": slurm_task}


def why_not(entry: str, a) -> str:
    """Why an entry point cannot run here ("" when it can)."""
    if entry == "ctest" and not shutil.which(a.ctest):
        return f"no {a.ctest}"
    if entry == "Slurm task":
        r = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True) if shutil.which("sinfo") else None
        if r is None:
            return "Slurm is not installed here (CI starts it as root: instructor/batch/tests/slurm-single-node)"
        if r.returncode != 0 or not any(s.startswith(("idle", "mix", "alloc")) for s in r.stdout.split()):
            return "no Slurm node answers (sinfo: " + (r.stderr.strip() or r.stdout.strip() or "nothing")[-200:] + ")"
    return ""


# ---- the table ----------------------------------------------------------------------------------

def table(results: dict, whos: list, skipped: dict, no_cgroup: dict, machine: str, secs: float) -> tuple[str, bool]:
    cols = [(e, w) for e in ENTRIES for w in whos]
    head = ["family", "case"] + [f"{e}, {w}" for e, w in cols]
    lines = ["# Issue 45: each family's case through each entry point (generated)", "",
             f"Generated by `instructor/batch/entry_points.py` (CTest `batch.EntryPoints`, label `entry-points`) "
             f"on {now()}, on {machine}, in {secs:.0f} s. Lab {LAB}, CPU tier, with bubblewrap "
             "(every judge's `banklab-judge sandbox` line is below); every entry point was started with a key "
             "planted in its session keyring. A cell: **holds** (with its evidence below), **FAILS**, "
             "*skipped* (the entry point cannot run here: why below), *n/a* (the family has no meaning there), "
             "*no cgroup* (the judge says it has no cgroup for this user, so the case, which would hold 4.8 GiB "
             "at once, is not run by a student's own build: the family does not hold there), "
             "**refused, not graded** (grading that counts, `--require-step-limits`, where the judge has no cgroup "
             "per step: each case NOT GRADED with the judge's refusal and its fix, no step of the file run), "
             "*device* (the GPU family: the command below). On PrairieLearn a build that failed is the file's "
             "as a format error (`gradable: false`, the errors shown, the attempt not counted), a fault is "
             "`succeeded: false` with \"the grading machine could not judge\": graded below means the former.", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    ok, notes = True, []
    for fam in ec.FAMILIES:
        row = [fam.name, ", ".join(f"`{c}`" for c in fam.cases) or "`" + ec.DEVICE_CASE + "`"]
        for e, w in cols:
            if fam.device:
                row.append("*device*")
            elif not fam.applies(e):
                row.append("*n/a*")
            elif (e, w) in skipped:
                row.append("*skipped*")
            elif w in no_cgroup and e in GRADING:
                held, evidence = ec.refused_for_step_limits({c: results[(e, w)][c] for c in fam.cases})
                ok &= held
                row.append("**refused, not graded**" if held else "**FAILS**")
                notes.append(f"- {fam.name}, {e}, {w}: {'holds' if held else 'FAILS'}: {evidence}")
            elif any(c in no_cgroup.get(w, {}) for c in fam.cases):
                row.append("*no cgroup*")
                notes.append(f"- {fam.name}, {e}, {w}: not run: the judge has no cgroup for this user, so nothing "
                             f"limits a step's processes together (its sandbox line is below)")
            else:
                held, evidence = fam.check({c: results[(e, w)][c] for c in fam.cases})
                if w in no_cgroup:        # a student's own build without a cgroup says so (a built file's record, probe.log)
                    said = any("limited per process only" in r["text"] + r["probe"] for r in results[(e, w)].values())
                    held &= said
                    evidence += ("; its builds say 'limited per process only'" if said else
                                 "; NOTHING it wrote says its limits are per process")
                ok &= held
                row.append("**holds**" if held else "**FAILS**")
                notes.append(f"- {fam.name}, {e}, {w}: {'holds' if held else 'FAILS'}: {evidence}")
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "## What each family's case is and what must hold", ""]
    lines += [f"- **{f.name}**: {f.what}" for f in ec.FAMILIES]
    lines += ["", "## Skipped and n/a", ""]
    lines += [f"- {e}, {w}: skipped: {why}" for (e, w), why in sorted(skipped.items())]
    lines += [f"- {f.name}: n/a for {', '.join(e for e in ENTRIES if not f.applies(e))}: {f.na}" for f in ec.FAMILIES
              if not f.device and any(not f.applies(e) for e in ENTRIES)]
    lines += ["", "## Evidence, cell by cell", ""] + notes + [""]
    return "\n".join(lines), ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--judge", type=Path, required=True)
    ap.add_argument("--root", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--ctest", default="ctest")
    ap.add_argument("--only", default="", help="comma-separated entry points (default: all)")
    a = ap.parse_args()
    a.judge, a.root = a.judge.resolve(), a.root.resolve()
    a.ctest = shutil.which(a.ctest) or a.ctest
    t0 = time.monotonic()
    lab_dir = a.root / "labs" / FOLDER
    files = ec.case_files(a.root, lab_dir, mz)
    base = Path(tempfile.mkdtemp(prefix="banklab-entry-points-"))
    os.chmod(base, 0o755)
    whos, skipped, results, sandbox, no_cgroup = ["root", "user"], {}, {}, [], {}
    uid, gid, user_why = normal_user()
    if uid >= 0 and (why := user_cannot_reach(uid, gid, a)):
        uid, user_why = -1, why
    people = ([Who("root", base, 0, 0)] if os.geteuid() == 0 else []) + ([Who("user", base, uid, gid)] if uid >= 0 else [])
    if os.geteuid() != 0:
        skipped.update({(e, "root"): "not run as root" for e in ENTRIES})
    if uid < 0:
        skipped.update({(e, "user"): user_why for e in ENTRIES})
    try:
        for who in people:
            rc, line, _ = who.run([a.judge, "sandbox"], timeout=120)
            line = line.strip().splitlines()[-1][:400] if line.strip() else f"exit {rc}"
            sandbox.append(f"- {who.name} (uid {who.uid}{', ' + USER + ', made by useradd' if who.uid else ''}): `{line}`")
            own = dict(files)    # what a student's own build (ctest) runs here
            if "no cgroup" in line:
                no_cgroup[who.name] = ["forked_processes_share_the_memory"]
                del own["forked_processes_share_the_memory"]
            for entry, fn in ENTRIES.items():
                mine = files if entry in GRADING else own
                why = why_not(entry, a) or ("" if not a.only or entry in a.only.split(",") else "left out (--only)")
                if who.uid != 0 and entry not in AS_USER:
                    why = "run as root only: the platforms run their adapters as root in their containers"
                if why:
                    skipped[(entry, who.name)] = why
                    continue
                t = time.monotonic()
                results[(entry, who.name)] = fn(a, who, mine)
                print(f"entry_points: {entry}, {who.name}: {time.monotonic() - t:.1f} s", flush=True)
        machine = f"{socket.gethostname()} ({platform.machine()}, {os.cpu_count()} CPUs, Linux {platform.release()})"
        text, ok = table(results, whos, skipped, no_cgroup, machine, time.monotonic() - t0)
        text += "\n## The judges' sandbox\n\n" + "\n".join(sandbox) + "\n\n" + ec.DEVICE_NOTE + "\n"
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(text)
        print(f"entry_points: wrote {a.out}; {'every cell that ran holds' if ok else 'a cell FAILS'}")
        for l in text.splitlines():
            if "FAILS" in l and l.startswith("- "):
                print(l[:2000])
        return 0 if ok else 1
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
