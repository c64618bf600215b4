#!/usr/bin/env python3
"""A lab's first command builds what its messages ask the student to run (issue 32, item 5).

  test_lab_presets.py --build BUILD_DIR --presets CMakePresets.json --cli PATH [--judge-dir DIR] [--ninja NINJA]
  (CTest: judge.LabPresetsBuildWhatTheirMessagesRun)

The judge's messages print the banklab CLI by its path in the build (See it:, Check yourself:;
grader/judge/checks.cpp, BANKLAB_CLI_PATH). For every lab's build preset (labNN in
CMakePresets.json, the build step of `cmake --workflow --preset labNN`), ninja is asked which
steps the preset's targets need (`ninja -t commands`): linking the CLI at that path must be one of
them, so that the first `See it:` a student pastes runs at once instead of building the CLI then.
Also checks that each lab's judge (banklab-judge-labNN) holds that path, i.e. that it is the path
its messages print. Needs a configured Ninja build; builds nothing.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path


def lab_build_presets(presets: Path) -> dict[str, list[str]]:
    data = json.loads(presets.read_text())
    return {p["name"]: p.get("targets", []) for p in data.get("buildPresets", [])
            if re.fullmatch(r"lab\d\d", p.get("name", ""))}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True, type=Path)
    ap.add_argument("--presets", required=True, type=Path)
    ap.add_argument("--cli", required=True, help="the CLI's file as the judge prints it ($<TARGET_FILE:banklab>)")
    ap.add_argument("--judge-dir", type=Path, help="where banklab-judge-labNN are (checked when built)")
    ap.add_argument("--ninja", default="ninja")
    a = ap.parse_args()
    labs = lab_build_presets(a.presets)
    if not labs:
        print(f"{a.presets}: no lab build preset (labNN)")
        return 1
    cli = Path(a.cli).resolve()
    wrong = []
    for name, targets in sorted(labs.items()):
        if not targets:
            wrong.append(f"{name}: the build preset names no targets (it would build everything)")
            continue
        r = subprocess.run([a.ninja, "-C", str(a.build), "-t", "commands", *targets], capture_output=True, text=True)
        if r.returncode != 0:
            wrong.append(f"{name}: ninja -t commands {' '.join(targets)} failed: {r.stderr.strip()[:300]}")
            continue
        # The link step of the CLI writes it with -o, relative to the build folder or absolute.
        outs = {(a.build / m).resolve() for m in re.findall(r"\s-o\s+(\S+)", r.stdout)}
        before = len(wrong)
        if cli not in outs:
            wrong.append(f"{name}: the preset's targets {targets} do not build {cli}, the banklab command its "
                         f"messages print (See it:, Check yourself:): add the target banklab")
        judge = a.judge_dir / f"banklab-judge-{name}" if a.judge_dir else None
        checked = judge is not None and judge.is_file()
        if checked and str(cli).encode() not in judge.read_bytes():
            wrong.append(f"{name}: {judge} does not hold {cli}: its messages print another banklab command")
        if len(wrong) == before:
            print(f"{name}: {' '.join(targets)} builds {cli}" + (" (the path its judge prints)" if checked else ""))
    for w in wrong:
        print(w)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
