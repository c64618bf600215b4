"""What grade-class writes of one submission beyond its grade. --keep-work: each submission's work folder (its build, the probe, the judge's log)
copied to OUT/work/STUDENT/labNN, so that it costs the class nothing (issue 45, item 5).

- Bounded per submission (KEEP_MAX_BYTES): the smallest files are kept first (the source, the logs,
  the verdicts); what does not fit (a probe linked to 242 MB) is dropped and named in NOT-KEPT.txt
  beside the rest, and in the result's note (the gradebook names it).
- A failure to write one submission's files (a folder that cannot be made, a name, an I/O error)
  is that submission's alone: what was copied of it is removed, its note says why, nothing is
  raised into the class run.
- A full disk (ENOSPC, EDQUOT) is the grader's fault, said once on the terminal: what was copied
  of that submission is removed (the space is freed for the reports), no other work folder is
  tried, and every result, the gradebook and the LMS files are still written.
- A result that cannot be written (unwritten(): a full disk) is said once too; grade-class keeps
  it in memory for this run's reports, and the next run grades it again.

Standard library only."""

from __future__ import annotations

import errno
import os
import shutil
import stat
import threading
from pathlib import Path

from banklab.grading import cleantext as ct

#: The most bytes of one submission's work folder kept (its files, smallest first).
KEEP_MAX_BYTES = 64 * 1024 * 1024
#: The file that names, in a kept work folder, what was not kept of it and why.
NOT_KEPT = "NOT-KEPT.txt"
FULL = (errno.ENOSPC, errno.EDQUOT)
FULL_NOTE = "work folder not kept: the disk of the output folder is full (the grader's problem, not the student's)"


def _entries(src: Path) -> list[tuple[str, os.stat_result]]:
    """Every entry under `src` (its path relative to `src`, its lstat), links never followed."""
    out = []
    for top, dirs, files in os.walk(src, followlinks=False):
        for n in dirs + files:
            p = Path(top) / n
            out.append((str(p.relative_to(src)), p.lstat()))
    return out


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n} bytes"


class Keeper:
    """One class run's keeping of work folders; `say(line)` prints one line for the instructor."""

    def __init__(self, say, limit: int = KEEP_MAX_BYTES):
        self.say, self.limit = say, limit
        self.full = self.unwritable = False
        self.lock = threading.Lock()

    def keep(self, src: Path, dest: Path, who: str) -> str:
        """Copy `src` to `dest` within the limit; "" when all of it was kept, else the note for
        the submission's row (what was dropped, or why nothing was kept). Never raises."""
        if self.full:
            return FULL_NOTE
        try:
            return self._copy(src, dest)
        except Exception as e:                # noqa: BLE001: confined to this one submission
            shutil.rmtree(dest, ignore_errors=True)          # nothing half-kept; frees what it took
            if isinstance(e, OSError) and e.errno in FULL:
                with self.lock:
                    first, self.full = not self.full, True
                if first:
                    self.say(f"the disk of {dest.parents[1]} is full ({os.strerror(e.errno)}) while keeping "
                             f"{who}'s work folder: the grader's problem, not a student's. No more work folders "
                             "are kept in this run; every grade is still written. Free some space, or run "
                             "without --keep-work")
                return FULL_NOTE
            why = e.strerror if isinstance(e, OSError) and e.strerror else f"{type(e).__name__}: {e}"
            return ct.line(f"work folder not kept: it could not be written ({why})")

    def unwritten(self, e: OSError, who: str) -> None:
        """A result that could not be written (OUT/results: a full disk): said once for the run;
        grade-class reports it from memory, and the next run grades it again."""
        with self.lock:
            first, self.unwritable = not self.unwritable, True
        if first:
            self.say(f"could not write the result of {who} ({e.strerror or e}): the grader's problem, not a "
                     "student's. Such results are in this run's reports but not kept, so the next run grades "
                     "them again; free some space")

    def _copy(self, src: Path, dest: Path) -> str:
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        entries = _entries(src)
        files = sorted(((rel, st) for rel, st in entries if not stat.S_ISDIR(st.st_mode)),
                       key=lambda e: (e[1].st_size if stat.S_ISREG(e[1].st_mode) else 0, e[0]))
        for rel, st in entries:
            if stat.S_ISDIR(st.st_mode):
                (dest / rel).mkdir(parents=True, exist_ok=True)
        used, dropped = 0, []
        for rel, st in files:
            if stat.S_ISLNK(st.st_mode):
                os.symlink(os.readlink(src / rel), dest / rel)        # kept as a link, never followed
            elif not stat.S_ISREG(st.st_mode):
                dropped.append(f"{ct.name(rel)} (not a regular file)")
            elif used + st.st_size > self.limit:
                dropped.append(f"{ct.name(rel)} ({_size(st.st_size)})")
            else:
                shutil.copyfile(src / rel, dest / rel, follow_symlinks=False)
                used += st.st_size
        if not dropped:
            return ""
        note = (f"work folder kept in part: {len(dropped)} file(s) over its limit of {_size(self.limit)} "
                f"not kept: {', '.join(dropped[:4])}{' ...' if len(dropped) > 4 else ''}")
        (dest / NOT_KEPT).write_text("Not kept (grade-class --keep-work keeps at most "
                                     f"{_size(self.limit)} of each submission, its smallest files first):\n"
                                     + "".join(f"  {d}\n" for d in dropped), encoding="utf-8")
        return note
