#!/usr/bin/env python3
"""The labs the course site has, as JSON, for the site's tests that are not Python
(docs/tests/browser.mjs): read from the labs' descriptions through python/banklab/lab (banklab.lab.labs.find_labs),
so a new lab joins the browser tests with no list to edit.

  site_labs.py --source S      [{"num": "05", "folder": "05_swizzle", "page": "lab05_swizzle.html",
                                 "title": "Swizzle", "explore": ["ld 4 ..."]}, ...]

Only the labs with a handout (labs/NN_name/README.md: the lab's page); `explore`: the patterns of
the `@explore` lines of labs/NN_name/figures.txt, which the lab page links to the bank explorer.
"""
from __future__ import annotations

import argparse
import json
import sys
import runpy
from pathlib import Path

runpy.run_path(str(Path(__file__).resolve().parents[2] / "python" / "banklab_run.py"))  # banklab's path, set in one place

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from banklab.docs import site  # noqa: E402
from banklab.docs import lab_work  # noqa: E402
from banklab.docs import sources  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", type=Path, default=Path(__file__).resolve().parents[2], help="the repository root")
    a = ap.parse_args()
    try:
        labs = [lab for lab in sources.find_labs(a.source.resolve()) if lab.readme.is_file()]
    except sources.SiteError as e:
        site.fail(str(e))
    print(json.dumps([{"num": lab.num, "folder": lab.folder, "page": f"{lab.page_id}.html",
                       "title": lab.info.title,
                       "explore": [f"{s.op} {s.width} {s.expr}" for s in lab_work.explorer_specs(lab.path)]}
                      for lab in labs], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
