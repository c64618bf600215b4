"""A C++ header generated from a data file and committed beside the code that includes it (so that a
compile with nothing but the source tree's include folders sees it): written with --write, checked
with --check, which the configure step runs and which fails when the header is not the data's.
banklab.lab.model_table (common/data/ops.toml) and banklab.grading.cleantext_rule
(grader/judge/clean_text.toml) make theirs through it."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable

from banklab import schemas


def main(argv: list[str] | None, module: str, data: str, header: str, make: Callable[[Path], str],
         default_root: Path) -> int:
    """The command line of a generator `module`: `make(root)` is the header's text for the course
    at root (SchemaError when `data` is not what it should be)."""
    ap = argparse.ArgumentParser(prog=f"python3 python/banklab_run.py -m {module}",
                                 description=f"{header}, generated from {data}")
    ap.add_argument("--root", type=Path, default=default_root, help="the course (default: this one)")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help=f"write {header} from {data}")
    mode.add_argument("--check", action="store_true", help=f"exit 1 when {header} is not {data}'s")
    a = ap.parse_args(argv)
    name = module.rsplit(".", 1)[-1]
    try:
        text = make(a.root)
    except schemas.SchemaError as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 2
    path = a.root / header
    same = path.is_file() and path.read_text(encoding="utf-8") == text
    if a.write:
        if not same:
            path.write_text(text, encoding="utf-8")
            print(f"{name}: wrote {header}")
        return 0
    if not same:
        print(f"{name}: {header} is not what {data} says: run\n  python3 python/banklab_run.py -m {module} --write",
              file=sys.stderr)
        return 1
    return 0
