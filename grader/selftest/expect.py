#!/usr/bin/env python3
"""Check a `banklab-judge grade --json` output against what a selftest case expects.

    expect.py --case FILE --verdicts grade.json [--stub-verdicts stub.json] [--source kernel.cu]
              [--graded]

What must hold depends on the case (see grader/selftest/README.md):

- bad/NN_name/*.patch: the lab built, and the test named in `// EXPECT_FAIL: Suite.Test` failed.
- cheats/*.cu and solutions/NN_name/cases/cheats/*.patch (`// EXPECT: no-full-pass`, the default): a lab that did not build, with no test
  passed, is a correct outcome (said in the OK line: "refused at build") when the cheat's code ran
  (its probe) or its header says why not compiling is the point (`// BUILD: may-fail REASON`); a
  `// PAYLOAD: TEXT` line means the payload prints TEXT when it runs: TEXT must be in the probe log
  the judge kept (--probe-log; proof it ran) and in no verdict. Otherwise not every
  test passed, every test the plain stub fails
  (--stub-verdicts: the stub's own grade.json) still fails, and nothing in the verdicts came from
  the student: one well-formed record per test of the lab (the stub's list when given), nothing
  extra, no `// MARKER:` string of the case in any message. `// TIER: gpu` cheats need the GPU
  tier: at least one gpu test must fail, and each `// GPU_EVIDENCE: Suite.Test: text` line (a gpu
  cheat needs one) names a gpu test that failed with that text in its message, proof that the
  payload ran on the GPU; where every gpu test skipped the result is "skipped". Whatever its EXPECT,
  a cheat whose LabNN.Build is a fault (not graded) where the stub's is not fails: a file must not
  make itself not graded (issue 45).
- alternatives/NN_name/*.patch: every test passed; gpu tests may skip, except with --graded/--gpu.

Exit status: 0 the expectation holds, 1 it does not (each reason printed), 77 it cannot be
judged here (the deciding tests were skipped: no GPU), 2 bad arguments or unreadable files.
Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys

from materialize import CaseError, banklab_labs, load_case  # noqa: E402
from banklab import schemas  # noqa: E402  (every JSON format's schema name, its strict reader)
from banklab.grading.result import Verdict  # noqa: E402  (timing_on_emulator: the emulated twin's timing skip)

STATUSES = ("passed", "failed", "skipped", "fault")   # fault: not judged, the machine's problem
TIERS = ("cpu", "gpu")
TEST_RE = re.compile(r"^Lab\d\d[A-Za-z0-9]*\.[A-Za-z0-9_]+$")   # LabNNSuite.Test: a test's name
SKIP = 77
NOTES: list[str] = []  # said with an OK (e.g. a cheat refused at build)


class Unjudgeable(Exception):
    """The verdicts that decide this case were skipped (no GPU)."""


def load_grade(path: str, what: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"{what} {path}: unreadable: {e}") from e
    if not isinstance(data, dict):
        raise ValueError(f"{what} {path}: not a JSON object")
    return data


def check_shape(grade: dict, what: str, lab: str | None) -> tuple[list[str], dict[str, dict]]:
    """Problems with the record's form, and the verdicts by test name."""
    problems: list[str] = []
    if grade.get("schema") != schemas.GRADE:
        problems.append(f"{what}: schema is {grade.get('schema')!r}, expected {schemas.GRADE!r}")
    if lab is not None and grade.get("lab") != lab:
        problems.append(f"{what}: lab is {grade.get('lab')!r}, expected {lab!r}")
    verdicts = grade.get("verdicts")
    by_test: dict[str, dict] = {}
    if not isinstance(verdicts, list) or not verdicts:
        problems.append(f"{what}: no verdicts (a grade without verdicts proves nothing)")
        return problems, by_test
    for i, v in enumerate(verdicts):
        where = f"{what}: verdict {i}"
        if not isinstance(v, dict):
            problems.append(f"{where}: not an object")
            continue
        test = v.get("test")
        if not isinstance(test, str) or not TEST_RE.match(test):
            problems.append(f"{where}: test name {test!r} is not LabNNSuite.Test")
            continue
        where = f"{what}: {test}"
        if test in by_test:
            problems.append(f"{where}: two verdicts for one test")
        if v.get("schema") not in (None, schemas.VERDICT):
            problems.append(f"{where}: schema {v.get('schema')!r}")
        if lab is not None and banklab_labs.lab_number(test) != lab:
            problems.append(f"{where}: a test of another lab")
        if v.get("status") not in STATUSES:
            problems.append(f"{where}: status {v.get('status')!r} is none of {', '.join(STATUSES)}")
        if v.get("tier") not in TIERS:
            problems.append(f"{where}: tier {v.get('tier')!r} is none of {', '.join(TIERS)}")
        checks = v.get("checks")
        if not isinstance(checks, int) or isinstance(checks, bool) or checks < 0:
            problems.append(f"{where}: checks {checks!r} is not a count")
        elif v.get("status") == "passed" and checks == 0:
            problems.append(f"{where}: passed with zero checks (a pass needs evidence)")
        if not isinstance(v.get("message", ""), str):
            problems.append(f"{where}: message is not text")
        by_test[test] = v
    return problems, by_test


def is_build(test: str) -> bool:
    return test.endswith(".Build")


def build_failed(by_test: dict[str, dict]) -> dict | None:
    for test, v in by_test.items():
        if is_build(test) and v.get("status") == "failed":
            return v
    return None


def summary(by_test: dict[str, dict]) -> str:
    counts = {s: sum(1 for v in by_test.values() if v.get("status") == s) for s in STATUSES}
    return ", ".join(f"{n} {s}" for s, n in counts.items())


def expect_bad(case, by_test: dict[str, dict], graded: bool) -> list[str]:
    names = case.headers.get("EXPECT_FAIL") or []
    if not names:
        return [f"{case.path}: a known-bad case needs a line '// EXPECT_FAIL: Suite.Test'"]
    problems: list[str] = []
    b = build_failed(by_test)
    if b is not None:
        return [f"the case did not build, so it proves nothing about {', '.join(names)}: "
                f"{b.get('message', '')[:400]}"]
    skipped = []
    for name in names:
        v = by_test.get(name)
        if v is None:
            problems.append(f"{name}: no verdict for it (renamed or removed? the case must name a test "
                            f"that exists)")
        elif v["status"] == "failed":
            continue
        elif v["status"] == "skipped" and not graded:
            skipped.append(name)
        else:
            tool = case.first("EXPECT_TOOL")
            extra = f" (the case expects {tool} to flag it)" if tool else ""
            problems.append(f"{name}: {v['status']} but must fail{extra}")
    if not problems and skipped:
        raise Unjudgeable(f"{', '.join(skipped)} skipped: {by_test[skipped[0]].get('message', '')[:200]}")
    return problems


def expect_alternative(case, by_test: dict[str, dict], graded: bool) -> list[str]:
    problems = []
    for test, v in sorted(by_test.items()):
        if v["status"] == "passed":
            continue
        if v["status"] == "skipped" and v.get("tier") == "gpu" and not graded:
            continue
        problems.append(f"{test}: {v['status']} (a valid alternative must pass every test): "
                        f"{v.get('message', '')[:600]}")
    return problems


def did_not_compile(build: dict | None) -> bool:
    """The build failed before the student's code could run (a compile or link error, a compile
    stopped at its limits): nothing of the cheat ran."""
    msg = (build or {}).get("message", "")
    return build is not None and (msg.startswith("your file does not compile") or msg.startswith("compiling your file")
                                  or msg.startswith("your file cannot be judged"))


def gpu_evidence(case, gpu: dict[str, dict]) -> list[str]:
    """A gpu-tier cheat's payload must be seen running on the GPU: each `// GPU_EVIDENCE: Suite.Test: text`
    line names a gpu test that must have failed with `text` in its message, text that only the
    payload's execution produces (the traced wavefronts of its kernel, its wrong output). Where the
    gpu tier did not run (every gpu test skipped) there is nothing to check. On the emulator, which
    runs timing tests but does not time them (their record `emulated`, skipped "needs a GPU ..."), a
    line naming such a test is not checked, so long as another line is: a cheat that timing and the
    traced check both catch keeps the timing line for the GPU and is held by the traced one here.
    A cheat whose payload takes another path on the emulator (it reads the SM clock to tell the traced
    launch: the emulator's tracing does not slow it) may say what the emulator's grade shows instead,
    `// EMU_EVIDENCE: Suite.Test: text` lines, checked in place of GPU_EVIDENCE where every GPU record
    is the emulator's (`emulated`), and only there."""
    lines = case.headers.get("GPU_EVIDENCE", [])
    emu_lines = case.headers.get("EMU_EVIDENCE", [])
    if emu_lines and gpu and all(v.get("emulated") for v in gpu.values()):
        lines = emu_lines
    if not lines:
        return ["a gpu-tier cheat needs a `// GPU_EVIDENCE: Suite.Test: text` line: nothing shows its payload "
                "ran on the GPU"]
    if all(v["status"] == "skipped" for v in gpu.values()):
        return []
    def untimed(test: str) -> bool:  # the points' one rule of an emulated timing skip (banklab.grading.result)
        v = gpu.get(test)
        return v is not None and Verdict(test, v.get("tier", ""), v["status"], v.get("message", ""),
                                         emulated=v.get("emulated") is True).timing_on_emulator
    checked = [line for line in lines if not untimed(line.partition(":")[0].strip())]
    if not checked:
        return ["every GPU_EVIDENCE line names a timing test, which the emulator does not time: nothing shows "
                "the payload ran (add a line for a test it judges, e.g. the traced one)"]
    problems = []
    for line in checked:
        test, sep, text = line.partition(":")
        test, text = test.strip(), text.strip()
        v = gpu.get(test)
        if not sep or not text:
            problems.append(f"GPU_EVIDENCE {line!r}: write it as Suite.Test: text")
        elif v is None:
            problems.append(f"GPU_EVIDENCE names {test}, which is no gpu test of this grade")
        elif v["status"] != "failed" or text not in v.get("message", ""):
            problems.append(f"{test} {v['status']} without {text!r} in its message: no evidence that the cheat's "
                            f"payload ran on the GPU")
    return problems


def payload_problems(case, by_test: dict[str, dict], probe_log: str | None) -> list[str]:
    """`// PAYLOAD: TEXT`: the payload prints TEXT when it runs. TEXT must be in the probe's log that
    the judge kept (proof that it ran) and in no verdict (the student's output is never feedback)."""
    problems: list[str] = []
    for text in case.headers.get("PAYLOAD", []):
        if not text:
            continue
        if probe_log is None:
            problems.append(f"PAYLOAD {text!r}: no probe log to look for it in (run_case.py passes --probe-log)")
        elif text not in probe_log:
            problems.append(f"the payload never ran: {text!r} is not in the judge's probe log, so this case proves "
                            f"nothing (make it compile and run, or say why not compiling is the point)")
        for test, v in by_test.items():
            if text in v.get("message", ""):
                problems.append(f"{test}: its message contains the payload's output {text!r}: the student's output "
                                f"reached a verdict")
    return problems


def build_fails_problems(case, by_test: dict[str, dict], reason: str, b: dict | None) -> list[str]:
    """EXPECT: build-fails REASON: the lab must fail its build and nothing of the case reach a verdict."""
    problems: list[str] = []
    if not reason:
        problems.append("EXPECT: build-fails needs its reason on the same line (why not compiling is the point)")
    for test, v in by_test.items():
        for text in case.headers.get("PAYLOAD", []) + case.headers.get("MARKER", []):
            if text and text in v.get("message", ""):
                problems.append(f"{test}: its message contains {text!r}: the student's material reached a verdict")
    if b is None:
        problems.append("the case must fail its build (LabNN.Build failed), but no build failure was "
                        "recorded")
    if any(v["status"] == "passed" for t, v in by_test.items() if not is_build(t)):
        problems.append("a test passed although the lab did not build")
    return problems


def refused_at_build(case, by_test: dict[str, dict], b: dict, problems: list[str], may_fail: bool,
                     may_fail_reason: str) -> list[str]:
    """A cheat whose lab did not build (b: the build's verdict)."""
    # Refusing to build fails the lab: a correct outcome for a cheat, reported as such so a stale
    # case stays visible. But a cheat that did not compile never ran: it proves nothing unless
    # its header says why not compiling is the point (BUILD: may-fail REASON).
    passed = sorted(t for t, v in by_test.items() if v["status"] == "passed" and not is_build(t))
    if passed:
        return problems + [f"the lab did not build, yet these passed: {', '.join(passed)}"]
    if did_not_compile(b) and not (may_fail and may_fail_reason) and not case.headers.get("PAYLOAD"):
        problems.append("the cheat did not compile, so its payload never ran and the case proves nothing: make it "
                        "compile, or say why not compiling is the point (// BUILD: may-fail REASON): "
                        + " ".join(b.get("message", "").split())[:300])
    if problems:
        return problems
    NOTES.append("refused at build: " + " ".join(b.get("message", "").split())[:160])
    return []


def same_tests_as_stub(by_test: dict[str, dict], stub: dict[str, dict]) -> list[str]:
    """The grade with the cheat has the stub's tests, no fewer and no more."""
    problems: list[str] = []
    missing = sorted(set(stub) - set(by_test))
    extra = sorted(set(by_test) - set(stub))
    if missing:
        problems.append(f"tests the stub's grade has but this grade lacks: {', '.join(missing)}")
    if extra:
        problems.append(f"tests this grade has but the stub's lacks (registered by the student?): "
                        f"{', '.join(extra)}")
    return problems


def gpu_tier_problems(case, non_build: dict[str, dict], graded: bool, problems: list[str]) -> list[str]:
    """A gpu-tier cheat: a gpu test must fail (problems: those found so far, returned with these)."""
    gpu = {t: v for t, v in non_build.items() if v.get("tier") == "gpu"}
    if not gpu:
        problems.append("a gpu-tier cheat, but the grade has no gpu test")
    elif not any(v["status"] == "failed" for v in gpu.values()):
        if all(v["status"] == "skipped" for v in gpu.values()) and not graded and not problems:
            raise Unjudgeable("every gpu test skipped: this cheat can be judged only on a GPU")
        if graded and any(v["status"] in ("skipped", "fault") for v in gpu.values()):
            problems.append("graded mode, yet gpu tests were not judged (a gpu test that cannot run is a "
                            "fault: this machine cannot grade the GPU tier)")
        problems.append(f"no gpu test failed ({summary(gpu)}): the kernel that really runs was not caught")
    problems += gpu_evidence(case, gpu)
    return problems


def cpu_tier_problems(by_test: dict[str, dict], stub: dict[str, dict] | None,
                      non_build: dict[str, dict]) -> list[str]:
    """A cpu-tier cheat: every test the stub fails still fails, and nothing the stub skipped passes."""
    problems: list[str] = []
    if stub is not None:
        for test, sv in sorted(stub.items()):
            if sv.get("status") != "failed" or is_build(test):
                continue
            v = by_test.get(test)
            if v is not None and v["status"] != "failed":
                problems.append(f"{test}: the stub fails it, the stub with this cheat {v['status']}")
        for test, sv in sorted(stub.items()):
            v = by_test.get(test)
            if sv.get("status") == "skipped" and v is not None and v["status"] == "passed":
                problems.append(f"{test}: skipped for the stub (no GPU?), passed with this cheat: a pass "
                                f"where the judge could not have run the test")
    elif not any(v["status"] == "failed" for v in non_build.values()):
        problems.append(f"no test failed ({summary(non_build)})")
    return problems


def build_fault(by_test: dict[str, dict], stub: dict[str, dict] | None) -> list[str]:
    """A cheat must not make its own file "not graded" (issue 45): its LabNN.Build is a fault only
    where the plain stub's is one too (the machine cannot build anything here)."""
    for test, v in by_test.items():
        if is_build(test) and v.get("status") == "fault" and (stub or {}).get(test, {}).get("status") != "fault":
            return [f"{test}: fault (not graded) with this cheat, while the plain stub builds here: a file must not "
                    f"make itself not graded: " + " ".join(v.get("message", "").split())[:300]]
    return []


def expect_cheat(case, by_test: dict[str, dict], stub: dict[str, dict] | None, graded: bool,
                 probe_log: str | None = None) -> list[str]:
    problems: list[str] = build_fault(by_test, stub)
    if problems:
        return problems
    expect_line = (case.first("EXPECT") or "no-full-pass").strip()
    words = expect_line.split(None, 1)
    expect = words[0].lower().rstrip(":") if words else "no-full-pass"
    reason = words[1].strip(" :-(),") if len(words) > 1 else ""
    build_line = (case.first("BUILD") or "").strip()
    may_fail = build_line.lower().startswith("may-fail")
    may_fail_reason = build_line[len("may-fail"):].strip(" :-(),") if may_fail else ""
    tier = (case.first("TIER") or "cpu").lower()
    b = build_failed(by_test)
    if expect == "build-fails":
        return build_fails_problems(case, by_test, reason, b)
    if expect != "no-full-pass":
        return [f"{case.path}: EXPECT must be no-full-pass or build-fails, got {expect!r}"]
    problems += payload_problems(case, by_test, probe_log)
    if b is not None and tier == "gpu" and not may_fail:
        # A gpu-tier cheat's payload is its kernel: if the lab did not build, it never ran.
        return ["a gpu-tier cheat that did not build proves nothing (its kernel never ran on the GPU): "
                + " ".join(b.get("message", "").split())[:200]]
    if b is not None:
        return refused_at_build(case, by_test, b, problems, may_fail, may_fail_reason)
    for marker in case.headers.get("MARKER", []):
        for test, v in by_test.items():
            if marker and marker in v.get("message", ""):
                problems.append(f"{test}: its message contains the cheat's output {marker!r}: the student's "
                                f"output reached a verdict")
    if stub is not None:
        problems += same_tests_as_stub(by_test, stub)
    non_build = {t: v for t, v in by_test.items() if not is_build(t)}
    if non_build and all(v["status"] == "passed" for v in non_build.values()):
        problems.append(f"every test passed ({len(non_build)}): the cheat got a full pass")
    if tier == "gpu":
        return gpu_tier_problems(case, non_build, graded, problems)
    return problems + cpu_tier_problems(by_test, stub, non_build)

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", required=True)
    ap.add_argument("--verdicts", required=True, help="banklab-judge grade --json output for the case")
    ap.add_argument("--stub-verdicts", help="the same for the plain stub (cheats)")
    ap.add_argument("--source", help="the materialized kernel.cu: its sha256 must be the grade's")
    ap.add_argument("--probe-log", help="the probe's output the judge kept (WORK/probe.log): PAYLOAD lines are "
                                        "looked for there")
    ap.add_argument("--graded", action="store_true", help="graded mode: a skipped gpu test counts as failed")
    ap.add_argument("--gpu", action="store_true",
                    help="this machine has a GPU: a skipped gpu test is not an acceptable outcome (as --graded)")
    args = ap.parse_args(argv)
    try:
        case = load_case(args.case)
        grade = load_grade(args.verdicts, "verdicts")
        stub_grade = load_grade(args.stub_verdicts, "stub verdicts") if args.stub_verdicts else None
    except (CaseError, ValueError, OSError) as e:
        print(f"expect.py: error: {e}", file=sys.stderr)
        return 2
    # The lab: the stub's grade is the reference when given (a forged grade may name any lab).
    lab = None
    for g in (stub_grade, grade):
        if g is not None and isinstance(g.get("lab"), str):
            lab = g["lab"]
            break
    problems, by_test = check_shape(grade, "verdicts", lab)
    stub = None
    if stub_grade is not None:
        stub_problems, stub = check_shape(stub_grade, "stub verdicts", lab)
        problems += stub_problems
    if args.source:
        with open(args.source, "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()
        if grade.get("source_sha256") != sha:
            problems.append(f"verdicts: source_sha256 {grade.get('source_sha256')!r} is not the case's "
                            f"kernel.cu ({sha}): these verdicts judge another file")
    if lab is not None and not case.applies_to(lab):
        problems.append(f"{case.path} does not apply to lab {lab}")
    args.graded = args.graded or args.gpu
    try:
        if not problems:
            if case.kind == "bad":
                problems = expect_bad(case, by_test, args.graded)
            elif case.kind == "alternative":
                problems = expect_alternative(case, by_test, args.graded)
            else:
                probe_log = None
                if args.probe_log:
                    try:
                        with open(args.probe_log, encoding="utf-8", errors="replace") as f:
                            probe_log = f.read()
                    except OSError:
                        probe_log = ""  # no log: the probe never ran
                problems = expect_cheat(case, by_test, stub, args.graded, probe_log)
    except Unjudgeable as e:
        print(f"SKIPPED {case.path}: {e}")
        return SKIP
    if problems:
        print(f"FAILED {case.path} ({case.kind}, lab {lab}; {summary(by_test)}):")
        for p in problems:
            print(f"  - {p}")
        return 1
    note = f" [{'; '.join(NOTES)}]" if NOTES else ""
    NOTES.clear()
    print(f"OK {case.path} ({case.kind}, lab {lab}; {summary(by_test)}){note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
