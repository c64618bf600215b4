"""The schema name of every JSON format the judge and the Python tools exchange: each format's
name in one place on the Python side (the C++ side: grader/judge/verdict.hpp, trace/include/banklab_trace/trace.hpp, and
CMake's checks of grader/judge/limits.json and common/data/ops.toml), written into every record and checked wherever one is read.
python/tests/test_house.py checks that no other Python module spells one out."""

from __future__ import annotations

import json

#: One test's record, DIR/labNN/<Suite.Test>.json and each element of a grade file's "verdicts".
VERDICT = "banklab.verdict.v1"
#: `banklab-judge grade --json OUT`: one submission's verdicts.
GRADE = "banklab.grade.v1"
#: grader/judge/limits.json: the judge's own time limits.
LIMITS = "banklab.limits.v1"
#: `banklab trace --format json`: one traced run's report (trace/src/trace.cpp).
TRACE_REPORT = "banklab.trace.v1"
#: common/data/ops.toml: the bank model's op and width table (banklab.lab.model_table).
OPS = "banklab.ops.v1"
#: grader/judge/clean_text.toml: the cleaning rule of text a student chose (both cleaners read it).
CLEAN_TEXT = "banklab.cleantext.v1"
#: grade-class's saved result of one lab of one student (banklab.grading.result.LabResult).
BATCH_RESULT = "banklab.batch.result.v1"

ALL = (VERDICT, GRADE, LIMITS, TRACE_REPORT, OPS, CLEAN_TEXT, BATCH_RESULT)


class SchemaError(ValueError):
    """A JSON record that is not what its reader expects: unreadable, a duplicate key, a string
    that is no Unicode text (a lone surrogate escape), or another schema."""


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out:
            raise SchemaError(f"the key {k!r} is there twice")
        out[k] = v
    return out


def _check_text(value: object) -> None:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise SchemaError("a string holds a \\u escape that is no character (a lone surrogate)") from None
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_text(k)
            _check_text(v)
    elif isinstance(value, list):
        for v in value:
            _check_text(v)


def loads(text: str | bytes, schema: str) -> dict:
    """`text` as a JSON object of `schema`, read strictly, as the judge's reader reads it
    (grader/judge/verdict.cpp, nlohmann::json): a duplicate key, a lone surrogate escape, a value
    that is not an object or another "schema" raise SchemaError."""
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates)
    except SchemaError:
        raise
    except (ValueError, UnicodeDecodeError) as e:
        raise SchemaError(f"not JSON ({e})") from None
    _check_text(data)
    if not isinstance(data, dict):
        raise SchemaError(f"not a {schema} record (not an object)")
    if data.get("schema") != schema:
        raise SchemaError(f"not a {schema} record (schema {data.get('schema')!r})")
    return data


def check(data: object, schema: str, where: str) -> dict:
    """`data` (a TOML or JSON file's top level, already read) when it is an object of `schema`;
    else SchemaError naming `where`."""
    if not isinstance(data, dict) or data.get("schema") != schema:
        got = data.get("schema") if isinstance(data, dict) else type(data).__name__
        raise SchemaError(f"{where}: not a {schema} file (schema {got!r})")
    return data
