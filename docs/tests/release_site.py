#!/usr/bin/env python3
"""The site of a release of every variant (issue 44 items 5 and 7), cheaply enough for CI.

  release_site.py --source ROOT --make-release MAKE_RELEASE --doxygen DOXYGEN --banklab BANKLAB --out DIR
  (CTest: docs.release_site_of_every_variant)

For each variant K (0 to the most variants a lab has) writes the release `make-release --variant K`
and, in it:
  1. the site's pages as the release builds them (its own docs/scripts/prepare_pages.py,
     gen_cli_page.py and gen_hardware_page.py, no figures), run through Doxygen: no warning (the
     docs build fails on any);
  2. every banklab command the release's README, handouts and pages print runs as printed from the
     release's root (build/dev/tools/banklab being the built CLI there, as the lab presets build
     it), and every judge they name under build/dev/grader/ is one a lab preset builds;
  3. the published site (docs/publish/github-pages.yml's configuration), built after the student
     worked on every lab (a line put into each stub's first LAB TODO part): the line is on none
     of its pages; the same pages built with "Your work" on hold it (the check can fail).
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

from banklab.docs import lab_work
from banklab.lab import labs as banklab_labs
from banklab.lab import variants as banklab_variants

COMMAND = re.compile(r"`((?:\S*/)?banklab (?:explain|compare|predict) [^`]*)`"
                     r"|^(?:\$ )?((?:\S*/)?banklab (?:explain|compare|predict) .*)$", re.M)
PLACEHOLDERS = {'"EXPR"': '"lane*16"', "MODE": "128", '"lane*S*4"': '"lane*2*4"'}
#: `OP WIDTH '<your expression of lane>'` (or double-quoted): lane * WIDTH put in.
TEMPLATE = re.compile(r"""(\b(?:ld|st|ldsm|stsm|cpasync|atom)\s+(\d+)\s+)(['"])<your expression of lane>\3""")
#: A line the test puts into each lab's first LAB TODO part, as a student's work (no lab's answer).
MARKER = "constexpr int kStudentsOwnWorkMarker{lab} = 0;"
JUDGE_PATH = re.compile(r"build/dev/grader/([\w.-]+)")
DOXYFILE = """QUIET = YES
WARNINGS = YES
WARN_IF_DOC_ERROR = YES
INPUT = {pages}
FILE_PATTERNS = *.md
OUTPUT_DIRECTORY = {out}
GENERATE_HTML = YES
GENERATE_LATEX = NO
HAVE_DOT = NO
MARKDOWN_SUPPORT = YES
TOC_INCLUDE_HEADINGS = 3
CASE_SENSE_NAMES = YES
WARN_LOGFILE = {log}
"""


def pages(release: Path, out: Path, *flags: str, banklab: str = "") -> Path:
    """The release's pages as its own scripts write them (the banklab command's page and the
    hardware page too, their examples run by `banklab`, when given)."""
    py = [sys.executable, str(release / "python" / "banklab_run.py")]
    subprocess.run([*py, str(release / "docs" / "scripts" / "prepare_pages.py"), "pages", "--source", str(release),
                    "--out", str(out), "--no-figures", *flags], check=True, capture_output=True, text=True)
    if banklab:
        subprocess.run([*py, str(release / "docs" / "scripts" / "gen_cli_page.py"), "--banklab", banklab, "--source",
                        str(release), "--template", str(release / "docs" / "pages" / "banklab.md"),
                        "--out", str(out / "banklab.md")], check=True, capture_output=True, text=True)
        subprocess.run([*py, str(release / "docs" / "scripts" / "gen_hardware_page.py"), "--banklab", banklab,
                        "--source", str(release), "--template", str(release / "docs" / "pages" / "hardware.md"),
                        "--out", str(out / "hardware.md"), "--no-figures"], check=True, capture_output=True, text=True)
    return out


def doxygen_warnings(doxygen: str, pages_dir: Path, work: Path) -> list[str]:
    work.mkdir(parents=True, exist_ok=True)
    log = work / "warnings.txt"
    (work / "Doxyfile").write_text(DOXYFILE.format(pages=pages_dir, out=work / "out", log=log))
    r = subprocess.run([doxygen, str(work / "Doxyfile")], capture_output=True, text=True)
    lines = [ln for ln in (log.read_text() if log.is_file() else "").splitlines() if "warning:" in ln or "error:" in ln]
    if r.returncode != 0 and not lines:
        lines.append(f"doxygen exit {r.returncode}: {r.stderr.strip()[:300]}")
    return lines


def printed_commands(texts: dict[str, str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for where, text in texts.items():
        for m in COMMAND.finditer(text):
            cmd = (m.group(1) or m.group(2)).strip()
            for k, v in PLACEHOLDERS.items():
                cmd = cmd.replace(k, v)
            cmd = TEMPLATE.sub(lambda t: f"{t.group(1)}'lane*{t.group(2)}'", cmd)
            args = cmd.split(" ")[2:]
            if all(w.startswith("--") for w in args):   # `banklab explain --svg`: an option named, no command
                continue
            if not re.search(r"\b[A-Z]{2,}\b", " ".join(args)):   # OP WIDTH EXPRESSION: a synopsis
                out.setdefault(cmd, where)
    return out


def preset_judges(root: Path) -> set[str]:
    presets = json.loads((root / "CMakePresets.json").read_text())
    return {t.replace("banklab_judge_lab", "banklab-judge-lab") for p in presets.get("buildPresets", [])
            for t in p.get("targets", []) if re.fullmatch(r"banklab_judge_lab\d\d", t)}


def with_work(stub: str, lab: str) -> str | None:
    """The stub with a student's line after its first LAB TODO comment outside namespace predict."""
    sections = lab_work.todo_sections(stub)
    if not sections:
        return None
    lines = stub.splitlines(keepends=True)
    i = sections[0].first_line - 1
    while i < len(lines) and lines[i].lstrip().startswith("//"):
        i += 1
    return "".join(lines[:i] + [MARKER.format(lab=lab) + "\n"] + lines[i:])


def main() -> int:
    ap = argparse.ArgumentParser()
    for k in ("--source", "--make-release", "--doxygen", "--banklab", "--out"):
        ap.add_argument(k, required=True)
    a = ap.parse_args()
    root, out = Path(a.source).resolve(), Path(a.out).resolve()
    labs = banklab_labs.find_labs(root)
    counts = [v.count for lab in labs.values() if (v := banklab_variants.read(lab)) is not None]
    publish = (root / "docs" / "publish" / "github-pages.yml").read_text()
    published_flags = ["--no-work"] if "-DBANKLAB_DOCS_YOUR_WORK=OFF" in publish else []
    if "--no-work" not in (root / "docs" / "CMakeLists.txt").read_text():
        published_flags = []   # the option does not reach prepare_pages: the published site copies the file
    judges = preset_judges(root)
    fails: list[str] = []
    ran = 0
    for k in range(max(counts, default=1)):
        rel = out / f"v{k}"
        subprocess.run([sys.executable, a.make_release, "--force", "--variant", str(k), str(rel)],
                       check=True, capture_output=True, text=True)
        student = pages(rel, out / f"pages{k}", banklab=str(Path(a.banklab).resolve()))
        fails += [f"variant {k}: {w}" for w in doxygen_warnings(a.doxygen, student, out / f"doxygen{k}")]

        texts = {f"variant {k}, {p.relative_to(rel)}": p.read_text()
                 for p in [rel / "README.md", *sorted(rel.glob("labs/*/README.md"))] if p.is_file()}
        texts |= {f"variant {k}, its page {p.name}": p.read_text() for p in sorted(student.glob("*.md"))}
        cli = rel / banklab_labs.BANKLAB_CLI
        cli.parent.mkdir(parents=True, exist_ok=True)
        cli.symlink_to(Path(a.banklab).resolve())
        for cmd, where in printed_commands(texts).items():
            r = subprocess.run(["bash", "-c", cmd], cwd=rel, capture_output=True, text=True, timeout=120)
            ran += 1
            if r.returncode != 0 or ("explain" in cmd and "wavefront" not in r.stdout.lower()):
                fails.append(f"{where}: `{cmd}` does not run as printed in the release: exit {r.returncode}: "
                             f"{(r.stderr or r.stdout).strip()[:200]}")
        for where, text in texts.items():
            for m in JUDGE_PATH.finditer(text):
                if m.group(1) not in judges:
                    fails.append(f"{where}: build/dev/grader/{m.group(1)} is no judge a lab preset builds "
                                 f"({', '.join(sorted(judges))})")

        markers = []
        for lab in labs.values():
            kernel = rel / "labs" / lab.folder / "kernel.cu"
            worked = with_work(kernel.read_text(), lab.number) if kernel.is_file() else None
            if worked:
                kernel.write_text(worked)
                markers.append(MARKER.format(lab=lab.number))
        published = "\n".join(p.read_text() for p in pages(rel, out / f"published{k}", *published_flags).glob("*.md"))
        local = "\n".join(p.read_text() for p in pages(rel, out / f"local{k}").glob("*.md"))
        for m in markers:
            if m in published:
                fails.append(f"variant {k}: the published site (docs/publish/github-pages.yml) shows the student's own "
                             f"kernel.cu: {m!r}")
            if m not in local:
                fails.append(f"variant {k}: {m!r} is not on the student's own site either: the check is void")
        if not markers:
            fails.append(f"variant {k}: no lab has a LAB TODO part: the check is void")
        print(f"variant {k}: pages checked by Doxygen, {len(printed_commands(texts))} commands run, "
              f"the published pages without the student's {len(markers)} files")
    if ran < 10:
        fails.append(f"only {ran} printed commands found: the collector is broken")
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
