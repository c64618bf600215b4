"""The border between C++ and Python (issue 48, item 2): facts both sides use are data both read,
and every JSON record crossing it is read strictly, by its schema name.

- banklab.grading.schemas.loads: a duplicate key, a lone surrogate escape, another schema or no
  object refuses; a record as the judge writes it passes.
- banklab.grading.judging.judge_limits: grader/judge/limits.json, the file CMake compiles into the
  judge; another schema or a limit that is no positive number refuses; the real file passes.

  PYTHONPATH=python python3 -m unittest python/tests/test_border.py -v
"""
from __future__ import annotations

import json
import shutil
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
from banklab.grading import judging  # noqa: E402
from banklab import schemas  # noqa: E402

GOOD = ('{"schema": "banklab.verdict.v1", "lab": "05", "test": "Lab05Layout.X", "tier": "cpu", '
        '"status": "passed", "checks": 12, "seconds": 0.25, "message": "caf\\u00e9"}')


class StrictRecords(unittest.TestCase):
    # (what, text, a piece of the refusal; None: read)
    CASES = [
        ("a record as the judge writes it", GOOD, None),
        ("a status given twice", GOOD.replace('"status": "passed"', '"status": "failed", "status": "passed"'),
         "there twice"),
        ("a duplicate key in a nested object", '{"schema": "banklab.verdict.v1", "x": {"a": 1, "a": 2}}', "there twice"),
        ("a lone high surrogate", GOOD.replace("caf\\u00e9", "\\ud800"), "lone surrogate"),
        ("a lone low surrogate as a key", GOOD.replace('"lab"', '"\\udc00"'), "lone surrogate"),
        ("a bad escape", GOOD.replace("caf\\u00e9", "\\u12"), "not JSON"),
        ("another schema", GOOD.replace("banklab.verdict.v1", "banklab.verdict.v2"), "not a banklab.verdict.v1"),
        ("no schema", '{"lab": "05"}', "not a banklab.verdict.v1"),
        ("an array", "[" + GOOD + "]", "not an object"),
        ("bytes that are not UTF-8", GOOD.encode().replace(b"caf", b"\xff\xfe"), "not JSON"),
    ]

    def test_each_hostile_record_is_refused_and_the_good_one_read(self):
        for what, text, refusal in self.CASES:
            with self.subTest(what):
                if refusal is None:
                    self.assertEqual(schemas.loads(text, schemas.VERDICT)["message"], "café")
                else:
                    with self.assertRaises(schemas.SchemaError) as e:
                        schemas.loads(text, schemas.VERDICT)
                    self.assertIn(refusal, str(e.exception))

    def test_every_schema_name_is_one_format_s(self):
        self.assertEqual(len(set(schemas.ALL)), len(schemas.ALL))
        for name in schemas.ALL:
            self.assertRegex(name, r"^banklab\.[a-z.]+\.v\d+$")


class JudgeLimits(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="banklab-limits-"))
        (self.tmp / "grader" / "judge").mkdir(parents=True)
        self.addCleanup(shutil.rmtree, self.tmp)

    def course_with(self, limits: dict) -> Path:
        (self.tmp / "grader" / "judge" / "limits.json").write_text(json.dumps(limits))
        return self.tmp

    def test_the_real_file_gives_both_limits(self):
        real = json.loads((ROOT / "grader" / "judge" / "limits.json").read_text())
        self.assertEqual(judging.judge_limits(), {"compile": float(real["compile_s"]), "probe": float(real["probe_s"])})

    def test_a_valid_file_is_read(self):
        lim = judging.judge_limits(self.course_with({"schema": schemas.LIMITS, "compile_s": 90, "probe_s": 12.5}))
        self.assertEqual(lim, {"compile": 90.0, "probe": 12.5})

    def test_a_file_that_is_not_the_limits_refuses(self):
        for what, limits, refusal in [
                ("another schema", {"schema": "banklab.limits.v2", "compile_s": 90, "probe_s": 20}, "not a banklab"),
                ("no probe limit", {"schema": schemas.LIMITS, "compile_s": 90}, "probe_s"),
                ("a limit of 0", {"schema": schemas.LIMITS, "compile_s": 0, "probe_s": 20}, "compile_s"),
                ("a limit as text", {"schema": schemas.LIMITS, "compile_s": "110", "probe_s": 20}, "compile_s"),
                ("a limit as a boolean", {"schema": schemas.LIMITS, "compile_s": 90, "probe_s": True}, "probe_s")]:
            with self.subTest(what):
                with self.assertRaises(schemas.SchemaError) as e:
                    judging.judge_limits(self.course_with(limits))
                self.assertIn(refusal, str(e.exception))


if __name__ == "__main__":
    unittest.main()
