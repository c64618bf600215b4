#!/usr/bin/env python3
"""Write the kernel.cu that one selftest case stands for.

    materialize.py --case FILE --lab-dir labs/NN_name|solutions/NN_name --out kernel.cu

A case is one file of grader/selftest/ (see its README.md):

- cheats/*.cu (grader/selftest/cheats/, and a lab's own in solutions/NN_name/cases/cheats/): a header of `// KEY: value` lines, then code. `// MODE: append` puts the whole file
  after the lab's kernel.cu (the stub), `// MODE: prepend` before it, `// MODE: replace` is the whole file, `// MODE: patch` applies the unified
  diff that follows the header. `// APPLIES: all` or `// APPLIES: 00 05` names the labs it is for.
- solutions/NN_name/cases/cheats/*.patch: a lab's cheat that is its solution plus a payload: header
  lines, then a unified diff against solutions/NN_name/kernel.cu (no MODE line: it is a patch of the
  solution, whatever --lab-dir names), so the file shows only what cheats.
- solutions/NN_name/cases/alternatives/*.patch and solutions/NN_name/cases/bad/*.patch: header
  lines, then a unified diff against solutions/NN_name/kernel.cu (the lab is the folder above cases/).

Diffs are applied exactly: every hunk's context and removed lines must match the file at the
line the hunk header names (after the shift of the hunks before it), no offset, no fuzz. Anything
else is an error that names the hunk and the line: a stale patch fails loudly, it never applies
"nearly". Python 3 standard library only; neither git nor patch is needed.
"""

from __future__ import annotations

import argparse
import os
import re
import runpy
import sys
from dataclasses import dataclass, field

runpy.run_path(os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "python", "banklab_run.py"))  # banklab's path, set in one place
from banklab.lab import labs as banklab_labs  # noqa: E402  (what a lab folder is, and the lab number of a name)

HEADER_RE = re.compile(r"^\s*//\s*([A-Z_]+):\s*(.*?)\s*$")
HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
MODES = ("append", "prepend", "patch", "replace")


class CaseError(Exception):
    """A case that cannot be turned into a kernel.cu (bad header, stale or garbled diff)."""


@dataclass
class Hunk:
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    lines: list[str] = field(default_factory=list)  # each starts with ' ', '-' or '+'
    header_line: int = 0  # line of the @@ header in the case file, for messages


@dataclass
class Case:
    path: str
    kind: str  # cheat | alternative | bad
    headers: dict[str, list[str]]
    body: str  # the text after the header (code, or the diff)
    hunks: list[Hunk]

    def first(self, key: str, default: str | None = None) -> str | None:
        values = self.headers.get(key)
        return values[0] if values else default

    @property
    def mode(self) -> str:
        if self.kind == "cheat" and not self.patches_solution:
            return (self.first("MODE") or "append").lower()
        return "patch"

    @property
    def patches_solution(self) -> bool:
        """A diff against solutions/NN_name/kernel.cu: every .patch case (bad, alternative, and a
        lab's cheat that is its solution plus a payload); a .cu cheat goes with the stub."""
        return self.path.endswith(".patch")

    @property
    def applies(self) -> list[str]:
        """Lab numbers ('00'...'05') or ['all']."""
        lab = lab_of_case_path(self.path)
        if lab:   # a lab's own case (solutions/NN_name/cases/...): its folder's lab
            return [lab]
        value = self.first("APPLIES")
        if value is None:
            return ["all"]
        labs = [t if t == "all" else banklab_labs.lab_number(t) for t in re.split(r"[\s,]+", value) if t]
        if not labs or None in labs:
            raise CaseError(f"{self.path}: APPLIES must be 'all' or lab numbers such as '05', got {value!r}")
        return labs

    def applies_to(self, lab: str) -> bool:
        labs = self.applies
        return "all" in labs or lab in labs


def lab_of_case_path(path: str) -> str | None:
    """'05' for a case of a lab, solutions/05_swizzle/cases/<kind>/x.patch (the lab is the folder
    above cases/); None for the course's cheats (grader/selftest/cheats/x.cu)."""
    parts = os.path.normpath(os.path.abspath(path)).split(os.sep)
    if len(parts) >= 4 and parts[-3] == "cases":
        return lab_of_folder(parts[-4])
    return None


def lab_of_folder(folder: str) -> str | None:
    """'05' for a folder named like a lab (labs/05_swizzle, .../bad/05_swizzle), else None."""
    name = os.path.basename(folder.replace(os.sep, "/").rstrip("/"))
    return banklab_labs.lab_number(name) if banklab_labs.FOLDER_RE.match(name) else None


def kind_of_case_path(path: str) -> str:
    parts = os.path.normpath(os.path.abspath(path)).split(os.sep)
    for part in reversed(parts[:-1]):
        if part in ("cheats", "alternatives", "bad"):
            return {"cheats": "cheat", "alternatives": "alternative", "bad": "bad"}[part]
    raise CaseError(f"{path}: not under cheats/, alternatives/ or bad/, and no '// KIND:' line")


def parse_headers(lines: list[str]) -> tuple[dict[str, list[str]], int]:
    """Leading comment lines `// KEY: value`. Returns them and the index of the first other line.

    The header is the run of `//` comment lines and blank lines at the top of the file; only the
    `KEY: value` lines among them are collected (a key may repeat).
    """
    headers: dict[str, list[str]] = {}
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if not (stripped.startswith("//") or stripped == ""):
            break
        m = HEADER_RE.match(lines[i])
        if m:
            headers.setdefault(m.group(1), []).append(m.group(2))
        i += 1
    return headers, i


def parse_diff(lines: list[str], start: int, path: str) -> list[Hunk]:
    """Hunks of the one-file unified diff in lines[start:]."""
    hunks: list[Hunk] = []
    i = start
    seen_old = seen_new = 0
    while i < len(lines) and not lines[i].startswith("--- "):
        if lines[i].startswith("@@") or lines[i].startswith("+++ "):
            raise CaseError(f"{path}:{i + 1}: diff without a '--- ' file line")
        i += 1
    if i >= len(lines):
        raise CaseError(f"{path}: no unified diff found (a '--- a/kernel.cu' line, a '+++ b/kernel.cu' line, hunks)")
    while i < len(lines):
        line = lines[i]
        if line.startswith("--- "):
            seen_old += 1
            if i + 1 >= len(lines) or not lines[i + 1].startswith("+++ "):
                raise CaseError(f"{path}:{i + 1}: '--- ' not followed by '+++ '")
            seen_new += 1
            if seen_old > 1:
                raise CaseError(f"{path}:{i + 1}: a case patches one file (kernel.cu); found a second file")
            i += 2
            continue
        m = HUNK_RE.match(line)
        if not m:
            if line.strip() == "" and all(not x.strip() for x in lines[i:]):
                break  # trailing blank lines
            raise CaseError(f"{path}:{i + 1}: expected a hunk header '@@ -a,b +c,d @@', got {line!r}")
        hunk = Hunk(int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1),
                    int(m.group(3)), int(m.group(4) if m.group(4) is not None else 1), header_line=i + 1)
        i += 1
        old = new = 0
        while i < len(lines) and (old < hunk.old_count or new < hunk.new_count):
            body = lines[i]
            if body.startswith("\\"):  # "\ No newline at end of file"
                i += 1
                continue
            if body == "":  # an empty context line whose leading space was stripped by an editor
                body = " "
            tag = body[0]
            if tag == " ":
                old += 1
                new += 1
            elif tag == "-":
                old += 1
            elif tag == "+":
                new += 1
            else:
                raise CaseError(f"{path}:{i + 1}: hunk line must start with ' ', '-' or '+', got {body!r}")
            hunk.lines.append(body)
            i += 1
        if old != hunk.old_count or new != hunk.new_count:
            raise CaseError(f"{path}:{hunk.header_line}: hunk says -{hunk.old_count} +{hunk.new_count} lines, "
                            f"has -{old} +{new}")
        while i < len(lines) and lines[i].startswith("\\"):
            i += 1
        hunks.append(hunk)
    if not hunks:
        raise CaseError(f"{path}: the diff has no hunks")
    return hunks


def load_case(path: str) -> Case:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    headers, end = parse_headers(lines)
    kinds = headers.get("KIND")
    kind = kinds[0].lower() if kinds else kind_of_case_path(path)
    if kind not in ("cheat", "alternative", "bad"):
        raise CaseError(f"{path}: KIND must be cheat, alternative or bad, got {kind!r}")
    case = Case(path=path, kind=kind, headers=headers, body="\n".join(lines[end:]), hunks=[])
    if case.patches_solution and (lab_of_case_path(path) is None or (case.first("MODE") or "patch") != "patch"):
        raise CaseError(f"{path}: a .patch case is a diff against its lab's solution: it lives in "
                        "solutions/NN_name/cases/<kind>/ and has no MODE line (a cheat of the stub is a .cu file)")
    mode = case.mode
    if mode not in MODES:
        raise CaseError(f"{path}: MODE must be one of {', '.join(MODES)}, got {mode!r}")
    if mode == "patch":
        case.hunks = parse_diff(lines, end, path)
    return case


def apply_hunks(original: str, hunks: list[Hunk], case_path: str, target_path: str) -> str:
    """Apply hunks exactly (no offset, no fuzz) to original; raise CaseError on any mismatch."""
    src = original.split("\n")
    trailing_newline = original.endswith("\n")
    if trailing_newline:
        src = src[:-1]
    out: list[str] = []
    pos = 0  # next unconsumed line of src (0-based)
    for n, hunk in enumerate(hunks, 1):
        # A hunk that removes nothing and keeps no context (old_count 0) inserts AFTER line old_start.
        start = hunk.old_start if hunk.old_count == 0 else hunk.old_start - 1
        if start < pos:
            raise CaseError(f"{case_path}:{hunk.header_line}: hunk {n} starts at line {hunk.old_start}, "
                            f"before the end of hunk {n - 1}: hunks must be in order and not overlap")
        if start > len(src):
            raise CaseError(f"{case_path}:{hunk.header_line}: hunk {n} starts at line {hunk.old_start} of "
                            f"{target_path}, which has {len(src)} lines: the patch is stale")
        out.extend(src[pos:start])
        pos = start
        for body in hunk.lines:
            tag, text = body[0], body[1:]
            if tag in (" ", "-"):
                if pos >= len(src):
                    raise CaseError(f"{case_path}:{hunk.header_line}: hunk {n} expects {text!r} at line {pos + 1} "
                                    f"of {target_path}, past its end: the patch is stale")
                if src[pos] != text:
                    raise CaseError(f"{case_path}:{hunk.header_line}: hunk {n} does not match {target_path} "
                                    f"line {pos + 1}:\n  patch expects: {text!r}\n  file has:      {src[pos]!r}\n"
                                    f"the patch is stale: regenerate it against the current file")
                if tag == " ":
                    out.append(text)
                pos += 1
            else:
                out.append(text)
    out.extend(src[pos:])
    result = "\n".join(out)
    if trailing_newline or out:
        result += "\n"
    return result


def materialize(case: Case, lab_dir: str) -> str:
    lab_dir = lab_dir.rstrip("/")
    lab = lab_of_folder(lab_dir)
    if lab is None:
        raise CaseError(f"--lab-dir {lab_dir!r}: expected a folder named NN_name (labs/05_swizzle)")
    if not case.applies_to(lab):
        raise CaseError(f"{case.path}: applies to lab(s) {' '.join(case.applies)}, not {lab}")
    case_lab = lab_of_case_path(case.path)
    if case.kind != "cheat" and case_lab and case_lab != lab:
        raise CaseError(f"{case.path}: is a case of lab {case_lab}, not of {lab}")
    target = os.path.join(lab_dir, "kernel.cu")
    if case.kind == "cheat" and case.patches_solution:   # the solution beside cases/, not the stub of --lab-dir
        target = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(case.path)))),
                              "kernel.cu")
    with open(target, encoding="utf-8") as f:
        original = f.read()
    mode = case.mode
    if mode == "append":
        sep = "" if original.endswith("\n") else "\n"
        return original + sep + f"// ---- selftest case {os.path.basename(case.path)} (appended) ----\n" + \
            _whole(case)
    if mode == "replace":  # the case is the whole file (what a student could hand in instead of the lab's)
        return _whole(case)
    if mode == "prepend":
        return f"// ---- selftest case {os.path.basename(case.path)} (prepended) ----\n" + _whole(case) + \
            "// ---- end of the prepended case ----\n" + original
    return apply_hunks(original, case.hunks, case.path, target)


def _whole(case: Case) -> str:
    with open(case.path, encoding="utf-8") as f:
        text = f.read()
    return text if text.endswith("\n") else text + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", required=True, help="a file of grader/selftest/cheats/ or solutions/NN_name/cases/<kind>/")
    ap.add_argument("--lab-dir", required=True, help="labs/NN_name or solutions/NN_name")
    ap.add_argument("--out", required=True, help="where to write the combined kernel.cu")
    args = ap.parse_args(argv)
    try:
        case = load_case(args.case)
        text = materialize(case, args.lab_dir)
    except (CaseError, OSError) as e:
        print(f"materialize.py: error: {e}", file=sys.stderr)
        return 2
    out_dir = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(out_dir, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
