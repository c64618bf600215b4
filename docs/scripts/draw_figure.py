#!/usr/bin/env python3
"""Draw one figure of docs/figures.txt (or of a lab's figures.txt) with the built `banklab`:

  draw_figure.py --banklab EXE --source REPO --name lab04_column_unpadded --out DIR

runs `banklab explain <op> <width> <expression> [--mask M] --svg DIR/<name>.svg --title T`
(or `banklab explain --line "..."` for a full access line) and checks that an SVG came out.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from banklab.docs import site  # noqa: E402
from banklab.docs import sources  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--banklab", required=True)
    ap.add_argument("--source", type=Path, required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    try:
        figs = {f.name: f for f in sources.read_all_figures(a.source.resolve())}
        if a.name not in figs:
            raise sources.SiteError(f"no figure named {a.name!r} in any figures.txt")
        fig = figs[a.name]
        a.out.mkdir(parents=True, exist_ok=True)
        svg = a.out / f"{fig.name}.svg"
        tmp = a.out / f".{fig.name}.svg.tmp"
        cmd = [a.banklab, *fig.banklab_args(), "--svg", str(tmp), "--title", fig.title]
        env = dict(os.environ, NO_COLOR="1")
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if r.returncode != 0:
            raise sources.SiteError(f"{fig.source}:{fig.line}: figure {fig.name}: `{' '.join(cmd)}` "
                                 f"exited {r.returncode}:\n{r.stderr or r.stdout}")
        head = tmp.read_text(encoding="utf-8")[:400] if tmp.exists() else ""
        if "<svg" not in head:
            raise sources.SiteError(f"figure {fig.name}: `{' '.join(cmd)}` wrote no SVG to {tmp}")
        os.replace(tmp, svg)
    except sources.SiteError as e:
        site.fail(str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
