#!/usr/bin/env python3
"""Issue 44's copy table: what a copy between variants earns. For every lab with variants and every
ordered pair (i, j), variant i's solved file graded as variant j (`banklab-judge grade --variant j`,
the way grade-class grades a student of variant j), against variant j's untouched stub and its own
solved file, in the course's points.

  python3 bench/variant_copies.py --judge J --out DIR [--tier cpu|gpu|all] [--jobs N] [--graded] [--pairs all|cyclic] [LAB...]

The target (issue 44): a copy earns at most the stub's points plus 10 % of the lab. A row over it
reads OVER; the run exits 1 when any row is OVER, 0 otherwise (2 when a grade had no verdicts). Writes
DIR/copies.txt, DIR/copies.json and each grade's log under DIR/work/. The files are rendered by
banklab.lab.variants (the one renderer, which asks the model's `banklab` command for a variant's
counts: $BANKLAB_CLI or a build of the course).
"""
from __future__ import annotations

import concurrent.futures as cf
import json
import runpy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
runpy.run_path(str(ROOT / "python" / "banklab_run.py"))  # banklab's path, set in one place
from banklab.grading import judging, invocation  # noqa: E402
from banklab.grading import points as bpt  # noqa: E402
import variant_files  # noqa: E402  (the command line and the files, shared with variants_gpu_table.py)


def main(argv: list[str]) -> int:
    a = variant_files.parse_args(__doc__, argv, "cpu", lambda ap: ap.add_argument(
        "--pairs", default="all", choices=("all", "cyclic"),
        help="every ordered pair (i, j), or only j = i + 1 mod the count (a cheaper run, e.g. on a GPU)"))
    jobs = []
    for number, count, files in variant_files.rendered_variants(a.out, a.labs):
        table = bpt.load_points(ROOT, number)
        expected = invocation.list_tests(Path(a.judge), number)
        for i in range(count):
            for j in range(count):
                if a.pairs == "cyclic" and j not in (i, (i + 1) % count):
                    continue
                jobs.append((number, files[(i, "solution")], j, f"v{i}_solution_as_v{j}", table, expected))
            jobs.append((number, files[(i, "stub")], i, f"v{i}_stub", table, expected))

    def run(job):
        number, source, j, stem, table, expected = job
        res = judging.grade_one(Path(a.judge), number, source, a.out / "work" / number / stem, expected=expected,
                                tier=a.tier, graded=a.graded, table=table, variant=j)
        judged = [x for x in res.verdicts if x.status in ("passed", "failed")]
        return number, stem, j, res.points, res.max_points, len(judged), [x.test for x in res.verdicts if x.status == "failed"]

    with cf.ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(run, jobs))
    by = {(r[0], r[1]): r for r in results}
    rows, over, empty = [], 0, 0
    for number, stem, j, pts, mx, judged, failed in results:
        if "_as_" not in stem:
            continue
        i = int(stem[1:stem.index("_")])
        stub_pts = by[(number, f"v{j}_stub")][3]
        own = by[(number, f"v{j}_solution_as_v{j}")][3]
        limit = stub_pts + 0.1 * mx
        verdict = "own file" if i == j else ("OVER" if pts > limit + 1e-9 else "ok")
        over += verdict == "OVER"
        empty += judged == 0
        rows.append({"lab": number, "file_of": i, "graded_as": j, "points": pts, "max": mx, "stub": stub_pts,
                     "own_solution": own, "limit": round(limit, 3), "verdict": verdict, "failed": failed})
    lines = [f"tier {a.tier}: variant i's solved file graded as variant j; limit = j's stub + 10 % of the lab",
             f"{'lab':>3} {'i':>2} {'j':>2} {'points':>7} {'stub':>6} {'limit':>6} {'own':>6} {'max':>6}  verdict"]
    for r in rows:
        lines.append(f"{r['lab']:>3} {r['file_of']:>2} {r['graded_as']:>2} {r['points']:>7} {r['stub']:>6} "
                     f"{r['limit']:>6} {r['own_solution']:>6} {r['max']:>6}  {r['verdict']}")
    copies = [r for r in rows if r["verdict"] != "own file"]
    lines.append(f"copies: {len(copies)}; over the limit: {over}; within it: {len(copies) - over}")
    (a.out / "copies.txt").write_text("\n".join(lines) + "\n")
    (a.out / "copies.json").write_text(json.dumps(rows, indent=1) + "\n")
    print("\n".join(lines))
    return 2 if empty else (1 if over else 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
