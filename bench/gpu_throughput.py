#!/usr/bin/env python3
"""GPU grading throughput on the device (issue 33): seconds a submission per GPU, verdicts against
-j 1, near-line flips, and the trace lock's proof. A benchmark, not a test.

  bench/experiments/gpu_integrity/device_gpu_integrity.sh build                 # once per machine: the judge in /tmp/gi/tree
  OUT=DIR python3 bench/gpu_throughput.py [--labs 05 ...] [-n 10] [--jobs 1 4 8 16] [--gpus 1 2]
                                          [--scopes default timed-kernels] [--rounds 1]
                                          [--flips 16] [--trace-proof] [--budget 540] [--dry-run]

Class: for each lab, a class of N (four solutions to one stub, each file unique: batch_throughput's
write_class) graded with instructor/batch/grade-class --tier all --graded at each -j and each GPU count
G (CUDA_VISIBLE_DEVICES naming the first G GPUs nvidia-smi lists, or of those $BANKLAB_BENCH_GPUS
names, comma-separated, so that two benchmarks share a machine apart; grade-class spreads its judges
over them; -j 1 only with the first G, as one judge at a time uses one GPU); prints wall seconds, seconds a submission, and seconds a submission per GPU (wall x G /
N), and compares every verdict of every run with the lab's first run (-j 1 on the first G): a
timing test whose verdict moves with -j is named. Then the time of a course of 200 students and 8
labs from the labs measured. --scopes: the GPU lock's scopes compared (BANKLAB_GPU_LOCK_SCOPE of
every judge; `default`: unset, the judge's constants), interleaved at each -j (-j 1 only with the
first: one judge alone takes no lock from another); --rounds R repeats each -j's runs R times, the
scopes' order reversed every other round (A B, B A, ...), so that drift hits both alike.

Flips (--flips K, 0 skips): lab 04's near-line kernels (bench/near_line_kernel.py: P = 25 %, 1.09x
the reference; P = 40 %, 1.17x; docs/perf/gpu_tier_integrity.md), each timing test run three
times alone (the median ratio says which verdict is right), then K at once on one GPU sharing its
lock: a flip is a verdict other than the right one.

Trace proof (--trace-proof): each lab's solution and stub, each traced test alone, then 16 at once
with a lock folder each (no lock between them): the same status and message (the message names
the traced counts of a failure) in every run proves the counts do not depend on other judges
(then grader/gpu/gpu_lock.hpp's kTracingTakesTheGpuAlone may go to false). A passed traced test
prints no counts: for those only the verdict is compared.

Every part stops starting runs past --budget seconds (one device call is at most 10 minutes) and
says what it skipped. Writes OUT/gpu_throughput.txt (the table) and OUT/gpu_throughput.json.
--dry-run: the judge's test double (instructor/batch/tests/fake_judge.py), no GPU, not --graded; the
flips and the trace proof only make their kernels and print their commands. Python 3 stdlib.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import runpy
from pathlib import Path

runpy.run_path(str(Path(__file__).resolve().parents[1] / "python" / "banklab_run.py"))  # banklab's path, set in one place

ROOT = Path(__file__).resolve().parents[1]
from banklab.grading import gpus as banklab_gpus                    # noqa: E402
from banklab.lab import labs as banklab_labs                    # noqa: E402
from batch_throughput import kernel_texts, write_class   # noqa: E402
from near_line_kernel import near_line_kernel            # noqa: E402

DEFAULT_JUDGE = Path("/tmp/gi/tree/build/gpu/grader/banklab-judge")
FAKE_JUDGE = ROOT / "instructor" / "batch" / "tests" / "fake_judge.py"
FLIP_TEST = "Lab04OnGpu.TransposeMeetsTheKernelTimingTarget"
TARGET = 1.10           # grader/gpu/kernel_timing.cuh: kKernelTimingTolerance


def timing_ratio(text: str) -> float | None:
    """The ratio of the last timing line in `text` ("... interleaved): 1.09x; target ..."), or None."""
    ratio = None
    for line in text.splitlines():
        if "interleaved): " in line:
            ratio = float(line.split("interleaved): ")[1].split("x")[0])
    return ratio


class Bench:
    def __init__(self, a):
        self.a = a
        self.t0 = time.monotonic()
        self.lines: list[str] = []
        self.data: dict = {"class": [], "flips": [], "trace": [], "skipped": []}
        self.work = Path(tempfile.mkdtemp(prefix="banklab-tput-"))
        self.work.chmod(0o777)       # a root judge runs each probe as a leased uid, which must reach it
        self.judge = FAKE_JUDGE if a.dry_run else Path(a.judge)
        # The judge's own tree (the course it was built from), where it has one.
        tree = self.judge.parents[3] if len(self.judge.parents) > 3 else ROOT
        self.course = tree if (tree / "instructor" / "batch" / "grade-class").is_file() else ROOT
        # The GPUs of the machine (not the caller's CUDA_VISIBLE_DEVICES, which each run sets), or
        # those $BANKLAB_BENCH_GPUS names: two benchmarks side by side on one machine, apart.
        mine = os.environ.get("BANKLAB_BENCH_GPUS", "")
        self.gpus = [g for g in mine.split(",") if g] or \
            banklab_gpus.discover({k: v for k, v in os.environ.items() if k != "CUDA_VISIBLE_DEVICES"})
        if a.dry_run and not self.gpus:
            self.gpus = ["0", "1"]   # names only: the test double uses no GPU

    def say(self, line: str = "") -> None:
        print(line, flush=True)
        self.lines.append(line)

    def over_budget(self, what: str) -> bool:
        if time.monotonic() - self.t0 < self.a.budget:
            return False
        self.data["skipped"].append(what)
        self.say(f"  skipped (past --budget {self.a.budget:g} s): {what}")
        return True

    def visible(self, g: int) -> str:
        return ",".join(self.gpus[:g])

    def judge_cmd(self) -> list[str]:
        return [sys.executable, str(self.judge)] if self.judge.suffix == ".py" else [str(self.judge)]

    # ------------------------------------------------------------------ the class
    def grade_class(self, subs: Path, lab: str, g: int, j: int, scope: str = "default") -> dict:
        out = self.work / f"lab{lab}" / f"out-g{g}-j{j}-{scope}-{time.monotonic_ns()}"
        cmd = [sys.executable, str(self.course / "instructor" / "batch" / "grade-class"), str(subs), "--out", str(out),
               "--lab", lab, "-j", str(j), "--tier", "all", "--quiet", "--judge", str(self.judge),
               "--course", str(self.course)] + ([] if self.a.dry_run else ["--graded"]) + \
              (["--keep-work"] if self.a.lock_waits else [])
        env = dict(os.environ, CUDA_VISIBLE_DEVICES=self.visible(g))
        env.pop("BANKLAB_GPU_LOCK_SCOPE", None)
        if scope != "default":
            env["BANKLAB_GPU_LOCK_SCOPE"] = scope
        t = time.monotonic()
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        wall = time.monotonic() - t
        verdicts = {}
        for f in sorted((out / "results").glob(f"*/lab{lab}.json")):
            d = json.loads(f.read_text())
            verdicts[d["student"]] = {v["test"]: v["status"] for v in d["verdicts"]}
        return {"lab": lab, "gpus": g, "jobs": j, "scope": scope, "n": len(verdicts), "wall_s": round(wall, 2),
                "rc": p.returncode, "lock_waits": self.counted_waits(out),
                "verdicts": verdicts, "tail": (p.stdout + p.stderr).strip().splitlines()[-3:]}

    def counted_waits(self, out: Path) -> list[float]:
        """--lock-waits: the judges' lock waits under `out`/work (then removed: build folders)."""
        if not self.a.lock_waits:
            return []
        waits = self.lock_waits(out / "work")
        shutil.rmtree(out / "work", ignore_errors=True)
        return waits

    @staticmethod
    def lock_waits(out: Path) -> list[float]:
        """The waits of a second or more for the GPU lock the judges' logs under `out` name
        ("[ GPU LOCK ] ... (waited 1.2 s)"), in seconds."""
        waits = []
        for f in out.rglob("*.log"):
            for line in f.read_text(errors="replace").splitlines():
                if "[ GPU LOCK ]" in line and "(waited " in line:
                    try:
                        waits.append(float(line.rsplit("(waited ", 1)[1].split()[0]))
                    except (IndexError, ValueError):
                        pass
        return waits

    @staticmethod
    def differ(base: dict, run: dict) -> list[str]:
        out = []
        for student, tests in base.items():
            for test, status in tests.items():
                other = run.get(student, {}).get(test)
                if other != status:
                    out.append(f"{student} {test}: {status} at the baseline, {other} here")
        return out

    def class_part(self) -> None:
        a = self.a
        self.say(f"== class: N = {a.n} per lab (4 solutions : 1 stub), --tier all{'' if a.dry_run else ' --graded'}; "
                 f"GPUs seen: {len(self.gpus)}")
        self.say(f"{'lab':>3} {'GPUs':>4} {'-j':>3} {'scope':>13} {'N':>3} {'wall s':>7} {'s/sub':>6} "
                 f"{'s/sub/GPU':>9}  verdicts vs the lab's first run")
        for lab in a.labs:
            texts = kernel_texts(lab, bad=False)          # [stub, solution]
            if len(texts) < 2:
                self.say(f"{lab}: no solution in this tree: skipped")
                continue
            subs = self.work / f"lab{lab}" / "subs"
            write_class(subs, lab, a.n, texts, pick=lambda i: 0 if i % 5 == 4 else 1)
            self.base_v = None
            for g in a.gpus:
                if g > len(self.gpus):
                    self.say(f"{lab:>3} {g:>4}   -  only {len(self.gpus)} GPU(s) here: skipped")
                    continue
                for j in a.jobs:
                    if j == 1 and g != a.gpus[0]:
                        continue       # one judge at a time uses one GPU however many it may use
                    for scope in self.scope_order(j):
                        self.class_row(subs, lab, g, j, scope)
        self.scopes_paired()
        self.course_projection()

    def scopes_paired(self) -> None:
        """Each lab, GPU count and -j measured with several scopes: mean seconds a submission per GPU of each."""
        rows = [r for r in self.data["class"] if r["n"]]
        keys = sorted({(r["lab"], r["gpus"], r["jobs"]) for r in rows})
        lines = []
        for lab, g, j in keys:
            per = {}
            for sc in self.a.scopes:
                v = [r["wall_s"] * g / r["n"] for r in rows
                     if (r["lab"], r["gpus"], r["jobs"], r["scope"]) == (lab, g, j, sc)]
                if v:
                    per[sc] = statistics.mean(v)
            if len(per) > 1:
                lines.append(f"  lab {lab}, {g} GPU(s), -j {j}: " + ", ".join(f"{sc} {x:.2f}" for sc, x in per.items()))
        if lines:
            self.say("== scopes compared (mean s/sub/GPU over the rounds)")
            for line in lines:
                self.say(line)

    def scope_order(self, j: int) -> list[str]:
        """The scopes' runs at -j `j`: each once per round, reversed every other round; -j 1 the first once."""
        sc = self.a.scopes
        if j == 1:
            return sc[:1]
        return [x for r in range(self.a.rounds) for x in (sc if r % 2 == 0 else sc[::-1])]

    def class_row(self, subs: Path, lab: str, g: int, j: int, scope: str) -> None:
        if self.over_budget(f"lab {lab}, {g} GPU(s), -j {j}, scope {scope}"):
            return
        r = self.grade_class(subs, lab, g, j, scope)
        first = self.base_v is None
        if first:
            self.base_v = r["verdicts"]
        diff = self.differ(self.base_v, r["verdicts"])
        r["differ"] = diff
        n = max(r["n"], 1)
        same = "baseline" if first else ("all equal" if not diff else f"{len(diff)} DIFFER: {diff[0]}")
        bad = "" if r["rc"] == 0 else f"  (grade-class exit {r['rc']}: {' | '.join(r['tail'])[:200]})"
        w = r["lock_waits"]
        waits = f"; {len(w)} lock wait(s) >= 1 s, longest {max(w):.1f} s" if w else ""
        self.say(f"{lab:>3} {g:>4} {j:>3} {scope:>13} {r['n']:>3} {r['wall_s']:>7.1f} {r['wall_s'] / n:>6.2f} "
                 f"{r['wall_s'] * g / n:>9.2f}  {same}{waits}{bad}")
        r.pop("verdicts")
        self.data["class"].append(r)

    def course_projection(self) -> None:
        rows = [r for r in self.data["class"] if r["n"]]
        if not rows:
            return
        self.say("== a course of 200 students x 8 labs (from the labs measured; mean over them x 8 where "
                 "not all 8 were)")
        for key in sorted({(r["gpus"], r["jobs"], r.get("scope", "default")) for r in rows}):
            sel = [r for r in rows if (r["gpus"], r["jobs"], r.get("scope", "default")) == key]
            per = [r["wall_s"] / r["n"] for r in sel]
            labs = {r["lab"] for r in sel}
            hours = 200 * statistics.mean(per) * 8 / 3600
            self.say(f"  {key[0]} GPU(s), -j {key[1]}, scope {key[2]}: {hours:.2f} h on one node "
                     f"({len(labs)} lab(s) measured)")

    # ------------------------------------------------------------------ near-line flips
    def build(self, lab: str, source: Path, work: Path) -> bool:
        p = subprocess.run(self.judge_cmd() + ["build", "--lab", lab, "--source", str(source), "--work", str(work)],
                           capture_output=True, text=True)
        if p.returncode != 0:
            self.say(f"  build of {source.name} for lab {lab} failed: {(p.stdout + p.stderr).strip()[-300:]}")
        return p.returncode == 0

    def start_test(self, lab: str, work: Path, test: str, results: Path, lock_dir: str = "") -> subprocess.Popen:
        env = dict(os.environ, CUDA_VISIBLE_DEVICES=self.visible(1))
        if lock_dir:
            env["BANKLAB_GPU_LOCK_DIR"] = lock_dir
        results.mkdir(parents=True, exist_ok=True)
        return subprocess.Popen(self.judge_cmd() + ["test", "--lab", lab, "--work", str(work), "--test", test,
                                                     "--results", str(results), "--graded"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)

    @staticmethod
    def outcome(p: subprocess.Popen, lab: str, test: str, results: Path) -> tuple[str, str, float | None]:
        """(status, message, timing ratio or None) of one finished `judge test`."""
        out = p.communicate()[0]
        ratio = timing_ratio(out)
        try:
            v = json.loads((results / f"lab{lab}" / f"{test}.json").read_text())
            return v["status"], v.get("message", ""), ratio
        except (OSError, ValueError, KeyError):
            return "none", out.strip()[-300:], ratio

    def run_many(self, lab: str, work: Path, test: str, k: int, tag: str, own_locks: bool) -> list[tuple]:
        procs = []
        for i in range(k):
            res = self.work / "runs" / f"{tag}-{i}"
            lock = str(self.work / "locks" / f"{tag}-{i}") if own_locks else ""
            procs.append((self.start_test(lab, work, test, res, lock), res))
        return [self.outcome(p, lab, test, res) for p, res in procs]

    def start_company(self, src: Path, p: int) -> list[tuple[subprocess.Popen, Path]]:
        """--flip-company C: C whole GPU-tier grades of the same kernel (correctness checks, traced
        and timed tests of other judges) started beside the K timing tests."""
        procs = []
        for i in range(self.a.flip_company):
            out = self.work / f"company{p}-{i}.json"
            env = dict(os.environ, CUDA_VISIBLE_DEVICES=self.visible(1))
            cmd = self.judge_cmd() + ["grade", "--lab", "04", "--source", str(src), "--work",
                                      str(self.work / f"company{p}-{i}"), "--json", str(out), "--tier", "gpu",
                                      "--graded"]
            log = open(self.work / f"company{p}-{i}.log", "w")  # noqa: SIM115 (the child writes it)
            procs.append((subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env), out))
            log.close()
        return procs

    @staticmethod
    def company_verdicts(procs: list[tuple[subprocess.Popen, Path]]) -> list[tuple]:
        """The timing test's (status, message, ratio) in each company grade."""
        got = []
        for proc, out in procs:
            proc.wait()
            try:
                tests = json.loads(out.read_text())["verdicts"]
            except (OSError, ValueError, KeyError):
                log = out.with_suffix(".log")
                tail = log.read_text(errors="replace").strip()[-300:] if log.exists() else ""
                got.append(("none", f"no grade in {out}: {tail}", None))
                continue
            for v in tests:
                if v.get("test") == FLIP_TEST:
                    m = v.get("message", "")
                    got.append((v["status"], m, timing_ratio(m)))
        return got

    def flips_part(self) -> None:
        a = self.a
        self.say(f"== near-line flips: {FLIP_TEST}, {a.flips} at once on one GPU sharing its lock (+ "
                 f"{a.flip_company} whole GPU-tier grades), lock scope "
                 f"{os.environ.get('BANKLAB_GPU_LOCK_SCOPE') or 'default'}")
        for p in a.flip_shares:
            src = self.work / f"near{p}.cu"
            src.write_text(near_line_kernel(p))
            work = self.work / f"near{p}"
            if a.dry_run:
                self.say(f"  P={p}%: would run {' '.join(self.judge_cmd())} build --lab 04 --source {src} --work {work},"
                         f" then test --test {FLIP_TEST} 3 times alone and {a.flips} at once")
                continue
            if self.over_budget(f"flips P={p}%") or not self.build("04", src, work):
                continue
            alone = [self.run_many("04", work, FLIP_TEST, 1, f"alone{p}-{i}", False)[0] for i in range(3)]
            ratios = sorted(r for _, _, r in alone if r is not None)
            if not ratios:
                self.say(f"  P={p}%: no timing ratio alone: {alone[0][1][:300]}")
                continue
            med = ratios[len(ratios) // 2]
            right = "passed" if med <= TARGET else "failed"
            company = self.start_company(src, p)
            many = self.run_many("04", work, FLIP_TEST, a.flips, f"many{p}", False)
            many += self.company_verdicts(company)
            # A run that gave no verdict (a company grade still running at its limit) is no flip:
            # it is counted apart.
            flips = sum(1 for s, _, _ in many if s not in (right, "none"))
            none = sum(1 for s, _, _ in many if s == "none")
            rs = sorted(r for _, _, r in many if r is not None)
            counts = {s: sum(1 for x, _, _ in many if x == s) for s in sorted({s for s, _, _ in many})}
            self.say(f"  P={p}%: alone {', '.join(f'{r:.2f}x' for r in ratios)} (median {med:.2f}x: {right}); "
                     f"{a.flips} at once: {counts}, ratios {rs[0] if rs else '?'}x-{rs[-1] if rs else '?'}x: "
                     f"{flips} flip(s)" + (f", {none} without a verdict" if none else ""))
            self.data["flips"].append({"p": p, "alone": ratios, "right": right, "many": counts, "ratios": rs,
                                       "flips": flips, "no_verdict": none})
            for s_, m_, _ in many:
                if s_ == "none":
                    self.say(f"    without a verdict, the first: {m_[-300:]}")
                    break

    # ------------------------------------------------------------------ trace proof
    @staticmethod
    def traced_tests(lab: str) -> list[str]:
        """The lab's tests that run traced, as Lab.tests() says (banklab.lab.lab_tests), not as their names do."""
        info = banklab_labs.find_labs(ROOT)[banklab_labs.lab_number(lab)]
        return [t.full_name for t in info.tests() if t.traced]

    def trace_part(self) -> None:
        a = self.a
        self.say(f"== trace proof: each traced test alone, then {a.trace_many} at once with a lock folder each")
        for lab in a.labs:
            info = banklab_labs.find_labs(ROOT)[banklab_labs.lab_number(lab)]
            for kind, src in (("solution", info.solution), ("stub", info.stub)):
                work = self.work / f"trace{lab}-{kind}"
                if a.dry_run:
                    self.say(f"  lab {lab} {kind}: would build {src} and run {self.traced_tests(lab)} alone and "
                             f"{a.trace_many} at once (BANKLAB_GPU_LOCK_DIR of its own each)")
                    continue
                if self.over_budget(f"trace proof lab {lab} {kind}") or not src.is_file() or \
                        not self.build(lab, src, work):
                    continue
                for test in self.traced_tests(lab):
                    alone = self.run_many(lab, work, test, 1, f"t{lab}{kind}{test}-alone", False)[0]
                    many = self.run_many(lab, work, test, a.trace_many, f"t{lab}{kind}{test}-many", True)
                    same = sum(1 for s, m, _ in many if (s, m) == alone[:2])
                    self.say(f"  lab {lab} {kind} {test}: alone {alone[0]}; {same} of {a.trace_many} at once the same"
                             + ("" if same == a.trace_many else f"; first other: {next(m for s, m, _ in many if (s, m) != alone[:2])[:300]}"))
                    self.data["trace"].append({"lab": lab, "kernel": kind, "test": test, "alone": alone[0],
                                               "message": alone[1][:2000], "same": same, "of": a.trace_many})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--judge", default=os.environ.get("BANKLAB_JUDGE", str(DEFAULT_JUDGE)))
    ap.add_argument("--labs", nargs="+", default=["05"])
    ap.add_argument("-n", type=int, default=10, help="submissions per lab (default 10)")
    ap.add_argument("--jobs", nargs="+", type=int, default=[1, 8])
    ap.add_argument("--gpus", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--scopes", nargs="+", default=["default"],
                    help="GPU lock scopes compared (BANKLAB_GPU_LOCK_SCOPE; default: unset)")
    ap.add_argument("--rounds", type=int, default=1, help="runs of each scope at each -j (order alternating)")
    ap.add_argument("--lock-waits", action="store_true",
                    help="count the judges' GPU lock waits of a second or more (grade-class --keep-work: its "
                         "copying adds to the wall time, alike for every scope)")
    ap.add_argument("--flips", type=int, default=16, help="near-line judges at once (0: no flips part)")
    ap.add_argument("--flip-shares", nargs="+", type=int, default=[25, 40])
    ap.add_argument("--flip-company", type=int, default=0,
                    help="whole GPU-tier grades of the same kernel run beside the flips (their timing verdicts count too)")
    ap.add_argument("--trace-proof", action="store_true")
    ap.add_argument("--trace-many", type=int, default=16)
    ap.add_argument("--no-class", action="store_true", help="skip the class part")
    ap.add_argument("--budget", type=float, default=540, help="start no run past this many seconds")
    ap.add_argument("--out", default=os.environ.get("OUT", "out"))
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the work folder (classes, builds, logs)")
    a = ap.parse_args()
    if not a.dry_run and not Path(a.judge).is_file():
        print(f"gpu_throughput: no judge at {a.judge}: build it first (bench/experiments/gpu_integrity/device_gpu_integrity.sh build) "
              "or pass --judge", file=sys.stderr)
        return 2
    b = Bench(a)
    b.say(f"gpu_throughput: judge {b.judge}, course {b.course}, GPUs {b.gpus or 'none'}, "
          f"{os.cpu_count()} CPUs{' (DRY RUN: test double, no GPU)' if a.dry_run else ''}")
    if not a.no_class:
        b.class_part()
    if a.flips > 0:
        b.flips_part()
    if a.trace_proof:
        b.trace_part()
    b.say(f"total: {time.monotonic() - b.t0:.1f} s")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "gpu_throughput.txt").write_text("\n".join(b.lines) + "\n")
    (out / "gpu_throughput.json").write_text(json.dumps(b.data, indent=1) + "\n")
    print(f"wrote {out / 'gpu_throughput.txt'}" + (f"; kept {b.work}" if a.keep else ""))
    if not a.keep:
        shutil.rmtree(b.work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
