"""Issue 44's target, checked in CI for a lab whose every variant has a kernel of its own (the stubs'
code differs): a classmate's solved file earns at most the untouched stub's CPU points plus 10 % of
the lab. For each cyclic pair, variant i's solved file graded as variant i + 1 (mod the count), the
points are the course's (banklab.grading.points through grading.grade_one, as
bench/variant_copies.py counts them); the stub is the copy's target variant's own stub.
Used by test_variants.py."""
from __future__ import annotations

import concurrent.futures
from pathlib import Path

from banklab.grading import grading, invocation, points
from banklab.lab import variants as V


def check_cyclic_copies(judge: str, lab, root: Path, tmp: Path, check) -> None:
    v = V.read(lab)
    n = v.count
    table = points.load_points(root, lab.number)
    expected = invocation.list_tests(Path(judge), lab.number)
    jobs = [(f"stub{k}", V.stub(lab, k), k) for k in range(n)]
    jobs += [(f"copy{i}", V.solution(lab, i), (i + 1) % n) for i in range(n)]

    def one(job):
        name, text, k = job
        src = tmp / name / "kernel.cu"
        src.parent.mkdir(parents=True)
        src.write_text(text)
        res = grading.grade_one(Path(judge), lab.number, src, tmp / name / "w", expected=expected, tier="cpu",
                                table=table, variant=k)
        judged = [x for x in res.verdicts if x.status in ("passed", "failed")]
        return name, (res.points, res.max_points, len(judged))

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        got = dict(pool.map(one, jobs))
    for i in range(n):
        j = (i + 1) % n
        pts, mx, judged = got[f"copy{i}"]
        stub_pts = got[f"stub{j}"][0]
        limit = stub_pts + 0.1 * mx
        check(judged > 0 and pts <= limit + 1e-9,
              f"variant {i}'s solved file graded as variant {j} earns {pts:g} of {mx:g} CPU-tier points: at most the "
              f"stub's {stub_pts:g} + 10 % of the lab = {limit:g} ({judged} tests judged)")
