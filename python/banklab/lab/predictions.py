"""What a lab's prediction may be, and answers that read the student's own layout: the one home of
both rules (issue 32). python/banklab/lab/gen.py checks the descriptions with it and writes its
results into the judge's questions (grader/include/grader/lab_description.hpp: lowest, highest,
step, range_what, tma_swizzle, value_of); grader/judge/checks.cpp refuses any other prediction,
with or without the answers, and never echoes one outside the range.

  prediction_range(q)          (lowest, highest, step, words) a prediction of question q may take
  check_question_keys(q)       the keys `range` and `tma_swizzle` well formed (problems, in words)
  table_value(value, tables)   `tile_index(2, 7) % 32`: (the value with the calls as 0, its C++ for
                               the judge reading the probe's tables), or (value, None) when it reads none
"""
from __future__ import annotations

import re

#: The TMA swizzle modes a question's access may go through (`tma_swizzle`, bytes); its self-check
#: command draws the student's unswizzled expression through it (`banklab explain --tma-swizzle`).
TMA_SWIZZLES = ("32", "64", "128")
#: A table of the description called at constant indices in a `value` answer: tile_index(5, 3).
TABLE_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(\s*(\d+(?:\s*,\s*\d+)*)\s*\)")


def prediction_range(q: dict) -> tuple[int, int, int, str]:
    """(lowest, highest, step, words) a prediction of question q may take: by what it asks; a
    `value` question gives its own (range = [lowest, highest] or [lowest, highest, step]: the
    constraint the question implies, a chunk's byte offset in steps of 16; range_what)."""
    if q["asks"] == "wavefronts":
        return 1, 32, 1, "a count of wavefronts of one warp instruction"
    if q["asks"] == "excess_wavefronts":
        return 0, 31, 1, "wavefronts above the minimum of one warp instruction"
    if q["asks"] == "smallest":
        r = q["x_range"]
        return r[0], r[1], r[2], q["yours"]
    r = q["range"]
    return r[0], r[1], r[2] if len(r) == 3 else 1, q["range_what"]


def check_question_keys(q: dict) -> list[str]:
    problems = []
    r = q.get("range")
    if r is not None and (len(r) not in (2, 3) or r[1] < r[0] or (len(r) == 3 and (r[2] < 1 or (r[1] - r[0]) % r[2]))):
        problems.append("key 'range' must be [lowest, highest] with highest >= lowest, or [lowest, highest, step] "
                        "with step >= 1 and highest - lowest a multiple of step")
    if "tma_swizzle" in q and q["tma_swizzle"] not in TMA_SWIZZLES:
        problems.append(f"key 'tma_swizzle' must be one of {', '.join(TMA_SWIZZLES)} (bytes)")
    return problems


def table_value(value: str, tables: set[str], cstr) -> tuple[str, str | None]:
    """A `value` answer that may read the student's own layout (`tile_index(2, 7) % 32`, a table of
    the description at constant indices): the expression with each call as 0 (to check its form),
    and the C++ expression the judge evaluates on the probe's tables (None: it reads none)."""
    calls = [m for m in TABLE_CALL.finditer(value) if m.group(1) in tables]
    plain = TABLE_CALL.sub(lambda m: "0" if m.group(1) in tables else m.group(0), value)
    if not calls:
        return plain, None
    return plain, TABLE_CALL.sub(
        lambda m: (f"grader::answers().table({cstr(m.group(1))}).at({{{m.group(2)}}}).value_or(-1)"
                   if m.group(1) in tables else m.group(0)), value)
