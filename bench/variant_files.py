"""What bench/variant_copies.py and bench/variants_gpu_table.py share: their common command line
(--judge, --out, --tier, --jobs, --graded, the labs) and the loop that renders each variant's
solved file and stub of every lab with variants into OUT/files/NN_vK_{solution,stub}.cu (through
banklab.lab.variants, the one renderer, which asks the model's `banklab` command for a variant's
counts: $BANKLAB_CLI or a build of the course). Not a program: the two scripts import it after
python/banklab_run.py has put the package on the path.
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Callable, Iterator

from banklab.lab import labs as banklab_labs, variants as banklab_variants

def parse_args(doc: str, argv: list[str], tier: str,
               more: Callable[[argparse.ArgumentParser], None] | None = None) -> argparse.Namespace:
    """The scripts' command line: the common options (`tier` the default of --tier), then those
    `more` adds, then the labs; the description is the first paragraph of the script's `doc`."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--judge", required=True)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--tier", default=tier, choices=("cpu", "gpu", "all"))
    ap.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    ap.add_argument("--graded", action="store_true", help="the instructor's graded mode (a missing GPU fails)")
    if more is not None:
        more(ap)
    ap.add_argument("labs", nargs="*", help="lab numbers (default: every lab with variants)")
    return ap.parse_args(argv)


def rendered_variants(out: Path, wanted: list[str]) -> Iterator[tuple[str, int, dict[tuple[int, str], Path]]]:
    """For each lab with variants (those numbered in `wanted`, every one when it is empty), in
    order: (its number, its variant count, {(k, kind): the file}) once variant k's solved file and
    stub are written under out/files/."""
    (out / "files").mkdir(parents=True, exist_ok=True)
    want = [n.zfill(2) for n in wanted]
    for number, lab in sorted(banklab_labs.find_labs().items()):
        v = banklab_variants.read(lab)
        if v is None or (want and number not in want):
            continue
        files = {}
        for k in range(v.count):
            for kind, text in (("solution", banklab_variants.solution(lab, k)), ("stub", banklab_variants.stub(lab, k))):
                f = out / "files" / f"{number}_v{k}_{kind}.cu"
                f.write_text(text)
                files[(k, kind)] = f
        yield number, v.count, files
