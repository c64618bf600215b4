"""Unit tests of python/banklab/lab/expr.py, the lane-expression evaluator (one generic check per
rule, the cases as data). The C++ evaluator gives the same on many more expressions: CTest
cli.ExprPythonAgreesWithCpp (tools/tests/expr_differential.py).

  python3 -m unittest discover -s python/banklab/lab -p 'test_banklab_expr.py' -v
"""
import ast
import copy
import shutil
import tempfile
import tomllib
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
from banklab.lab import expr as banklab_expr  # noqa: E402
from banklab.lab import description as banklab_description  # noqa: E402
from banklab.lab.schema import DescriptionError  # noqa: E402
from banklab.lab import model_table  # noqa: E402
from banklab import schemas  # noqa: E402

# (expression, lane, value): C's semantics on 64-bit integers, C's precedence.
VALUES = [
    ("lane*17*4", 3, 204), ("(lane*32+5)*4", 1, 148), ("0x1F", 0, 31), ("0X10", 0, 16), ("007", 0, 7),
    ("-7/2", 0, -3), ("-7%2", 0, -1), ("7/-2", 0, -3), ("7%-2", 0, 1), ("-7/-2", 0, 3), ("-7%-2", 0, -1),
    ("(lane-16)/3", 0, -5), ("(lane-16)%3", 0, -1), ("-lane%3", 4, -1),   # Python: -6, 2, 2
    ("2+3*4", 0, 14), ("1<<2+1", 0, 8), ("6^3&5", 0, 7), ("1|2^3", 0, 1), ("1&2<<1", 0, 0),
    ("100-10-1", 0, 89), ("100/10/2", 0, 5), ("256>>2>>1", 0, 32), ("1<<2<<3", 0, 32),
    ("-lane*2", 5, -10), ("~lane&31", 2, 29), ("~0", 0, -1), ("--lane", 3, 3), ("-+-lane", 3, 3),
    ("-8>>1", 0, -4), ("-1>>62", 0, -1), ("1<<62", 0, 1 << 62), ("9223372036854775807", 0, banklab_expr.INT64_MAX),
    ("-9223372036854775807-1", 0, banklab_expr.INT64_MIN), ("(-9223372036854775807-1)%-1", 0, 0),
    ("lane*64 + ((1 ^ (lane & 3)) << 4)", 9, 9 * 64 + ((1 ^ 1) << 4)), ("\tlane * 4 ", 2, 8),
    ("1" + "+1" * 2047, 0, 2048), ("(" * 199 + "lane" + ")" * 199, 7, 7),
]

# (expression, column, message): what the C++ refuses, refused with its column and words.
SYNTAX = [
    ("", 1, 'column 1: the expression is empty (try "lane*4")'),
    ("(1", 3, "column 3: missing ')' for the '(' at column 1"),
    ("(1 2", 4, "column 4: expected ')' for the '(' at column 1, found '2'"),
    ("1)", 2, "column 2: unmatched ')'"),
    ("1 2", 3, "column 3: expected an operator or the end of the expression, found '2'"),
    ("1+", 3, "column 3: expected a number, 'lane' or '(' but the expression ends"),
    ("()", 2, "column 2: expected a number, 'lane' or '(' before ')'"),
    ("x*4", 1, "column 1: unknown name 'x' (the only variable is 'lane')"),
    ("lane*S*4", 6, "column 6: unknown name 'S' (the only variable is 'lane')"),
    ("12ab", 1, "column 1: '12ab' is not a number (decimal, or hexadecimal with 0x)"),
    ("0x", 1, "column 1: '0x' is not a number (decimal, or hexadecimal with 0x)"),
    ("9223372036854775808", 1, "column 1: number '9223372036854775808' is too large"),
    ("1 < 2", 3, "column 3: expected an operator or the end of the expression, found '< 2'"),
    ("1**2", 3, "column 3: unexpected character '*' (operators: + - * / % & | ^ << >> ~ and parentheses)"),
    ("lane\n", 5, "column 5: expected an operator or the end of the expression, found '\\x0a'"),
    ("l\u00e9", 1, "column 1: unknown name 'l' (the only variable is 'lane')"),
    ("(" * 200 + "1" + ")" * 200, 201, "column 201: expression nested deeper than 200 levels"),
    ("lane" + " " * 4093, 4097, "the expression is longer than 4096 characters"),
]

# (expression, lane, column, message): evaluation errors, per lane.
EVAL_ERRORS = [
    ("1/0", 0, 2, "lane 0: division by zero (column 2)"),
    ("32%lane", 0, 3, "lane 0: remainder of division by zero (column 3)"),
    ("1<<63", 5, 2, "lane 5: shift by 63 (a shift count must be 0 to 62) (column 2)"),
    ("lane>>-1", 1, 5, "lane 1: shift by -1 (a shift count must be 0 to 62) (column 5)"),
    ("-lane<<1", 1, 6, "lane 1: left shift of a negative value (column 6)"),
    ("lane<<62", 2, 5, "lane 2: overflow in '<<' (column 5)"),
    ("9223372036854775807+lane", 1, 20, "lane 1: overflow in '+' (column 20)"),
    ("3037000500*3037000500", 0, 11, "lane 0: overflow in '*' (column 11)"),
    ("-(-9223372036854775807-1)", 0, 1, "lane 0: overflow in '-' (column 1)"),
    ("(-9223372036854775807-1)/-1", 0, 25, "lane 0: overflow in '/' (column 25)"),
    ("(1/0)+(1%0)", 0, 3, "lane 0: division by zero (column 3)"),   # the left operand first, as C++
]


class Values(unittest.TestCase):
    def test_c_semantics_and_precedence(self):
        for text, lane, want in VALUES:
            with self.subTest(text=text[:40], lane=lane):
                self.assertEqual(banklab_expr.Expr(text).eval(lane=lane), want)

    def test_division_truncates_where_python_floors(self):
        for a in range(-9, 10):
            for b in (-4, -3, -1, 1, 2, 5):
                with self.subTest(a=a, b=b):
                    q, r = banklab_expr.evaluate(f"({a})/({b})"), banklab_expr.evaluate(f"({a})%({b})")
                    self.assertEqual(q, int(a / b))           # toward zero
                    self.assertEqual(q * b + r, a)             # C's identity
                    self.assertTrue(r == 0 or (r < 0) == (a < 0))

    def test_variables_are_the_callers(self):
        e = banklab_expr.Expr("lane * (32 + x) * 8", ("lane", "x"))
        self.assertEqual(e.eval(lane=2, x=1), 2 * 33 * 8)
        self.assertEqual(e.uses(), {"lane", "x"})
        self.assertEqual(banklab_expr.evaluate("32 * 34 * 4"), 4352)
        with self.assertRaisesRegex(banklab_expr.ExprError, r"unknown name 'lane' \(the expression uses numbers only\)"):
            banklab_expr.evaluate("lane + 1")
        with self.assertRaisesRegex(banklab_expr.ExprError, r"unknown name 'y' \(the variables are 'lane' and 'x'\)"):
            banklab_expr.Expr("lane * y", ("lane", "x"))
        with self.assertRaisesRegex(banklab_expr.ExprError, r"^column 1: expected a number, 'lane', 'x' or '\(' before"):
            banklab_expr.Expr(")", ("lane", "x"))
        with self.assertRaisesRegex(banklab_expr.ExprError, r"^lane 3, x = 0: division by zero \(column 5\)$"):
            banklab_expr.Expr("lane/x", ("lane", "x")).eval(lane=3, x=0)


class Errors(unittest.TestCase):
    def test_syntax_errors_name_the_column(self):
        for text, col, msg in SYNTAX:
            with self.subTest(text=text[:40]):
                with self.assertRaises(banklab_expr.ExprError) as cm:
                    banklab_expr.Expr(text)
                self.assertEqual((cm.exception.column, str(cm.exception)), (col, msg))

    def test_evaluation_errors_name_the_lane_and_column(self):
        for text, lane, col, msg in EVAL_ERRORS:
            with self.subTest(text=text):
                e = banklab_expr.Expr(text)
                with self.assertRaises(banklab_expr.ExprError) as cm:
                    e.eval(lane=lane)
                self.assertEqual((cm.exception.column, str(cm.exception)), (col, msg))


class Accesses(unittest.TestCase):
    def test_every_op_and_width_of_the_model(self):
        self.assertEqual(len(banklab_expr.OPS), 10)
        for op, widths in banklab_expr.OPS.items():
            for w in widths:
                with self.subTest(op=op, width=w):
                    a = banklab_expr.parse_access(f"{op} {w} lane*{w}")
                    self.assertEqual((a.op, a.width, a.mask), (op, w, 0xFFFFFFFF))
                    self.assertEqual(list(a.offsets), [lane * w for lane in range(32)])

    def test_a_line_with_x_and_a_mask(self):
        a = banklab_expr.parse_access("ld 8 lane * (32 + x) * 8", "0x0000ffff", x=1)
        self.assertEqual(a.offsets[:3], (0, 264, 528))
        self.assertEqual(a.offsets[16:], (0,) * 16)          # inactive lanes: 0, never evaluated
        self.assertEqual(len(a.active()), 16)
        a = banklab_expr.parse_access("ld 4 (4/(lane-5)+4)*4", "ffffffdf")     # lane 5 inactive: no division by 0
        self.assertEqual((a.offsets[0], a.offsets[5], a.offsets[6]), (16, 0, 32))  # C: 4/-5 == 0

    REFUSED = [  # (line, mask, message)
        ("sts 4 lane*4", "ffffffff", "unknown op 'sts' (expected one of 'ld', 'st', 'ldsm',"),
        ("ld 12 lane*4", "ffffffff", "width 12 is not one of 1, 2, 4, 8, 16"),
        ("ldsm 8 lane*8", "ffffffff", "ldsm width 8 is not one of 16"),
        ("atominc 8 lane*8", "ffffffff", "atominc width 8 is not one of 4"),
        ("ld 4 lane*4", "0x1ffffffff", "mask '0x1ffffffff' is not a 32-bit hexadecimal number"),
        ("ld 4", "ffffffff", "expected 'OP WIDTH EXPRESSION' (e.g. ld 4 lane*33*4), found only 2 field(s)"),
        ("ld 4 (lane-16)*4", "ffffffff", "lane 0: byte offset -64 is negative"),
        ("ld 4 lane*2", "ffffffff", "lane 1: offset 2 is not a multiple of the width 4"),
        ("ld 4 232448", "ffffffff", "lane 0: offset 232448 is beyond the largest shared memory of a block (232448 bytes)"),
        ("ld 4 lane*1000000", "ffffffff", "lane 1: byte offset 1000000 is beyond the largest shared memory"),
        ("ld 4 lane*x", "ffffffff", "column 6: unknown name 'x' (the only variable is 'lane')"),
    ]

    def test_what_the_model_refuses_is_refused(self):
        for line, mask, msg in self.REFUSED:
            with self.subTest(line=line):
                with self.assertRaises(banklab_expr.ExprError) as cm:
                    banklab_expr.parse_access(line, mask)
                self.assertIn(msg, str(cm.exception))


class OpTableFromItsData(unittest.TestCase):
    """OPS, LEGAL_WIDTHS and MAX_SHARED_BYTES are common/data/ops.toml's (banklab.lab.model_table), the
    file the C++ header is generated from; the compiled model's table is compared with them in
    cli.ExprPythonAgreesWithCpp, the committed header with the file here."""

    def table(self):
        return tomllib.loads((ROOT / model_table.DATA).read_text())

    def test_expr_has_the_files_table(self):
        t = model_table.parse(self.table())
        self.assertEqual(banklab_expr.OPS, t.ops)
        self.assertEqual((banklab_expr.LEGAL_WIDTHS, banklab_expr.MAX_SHARED_BYTES), (t.legal_widths, t.max_shared_bytes))
        self.assertEqual(banklab_expr.OPS["ldsm"], (16,))

    def test_the_committed_header_is_the_files(self):
        self.assertEqual((ROOT / model_table.HEADER).read_text(), model_table.cpp_header(model_table.parse(self.table())),
                         "python3 python/banklab_run.py -m banklab.lab.model_table --write")

    def test_an_edit_of_the_file_is_the_new_table(self):
        d = self.table()
        d["op"][6]["widths"] = [4, 8]
        t = model_table.parse(d)
        self.assertEqual(t.ops["atominc"], (4, 8))
        self.assertIn('{Op::AtomicIncrement, "atominc", {4, 8, 0, 0, 0}, 2}', model_table.cpp_header(t))

    def test_a_file_that_is_not_the_table_is_refused_naming_the_key(self):
        def edit(f):
            d = copy.deepcopy(self.table())
            f(d)
            return d
        cases = [
            ("another schema", lambda d: d.update(schema="banklab.ops.v2"), "not a banklab.ops.v1"),
            ("a width that is no legal width", lambda d: d["op"][4].update(widths=[4, 32]), "not all legal widths"),
            ("widths out of order", lambda d: d["op"][4].update(widths=[16, 4]), "ascending"),
            ("no widths", lambda d: d["op"][4].update(widths=[]), "widths"),
            ("a name twice", lambda d: d["op"][1].update(name="ld"), "there twice"),
            ("an enumerator twice", lambda d: d["op"][1].update(enumerator="Load"), "there twice"),
            ("a name that is no word", lambda d: d["op"][1].update(name="s t"), "lower-case word"),
            ("a row without about", lambda d: d["op"][1].pop("about"), "exactly enumerator"),
            ("a legal width of 0", lambda d: d.update(legal_widths=[0, 4]), "legal_widths"),
            ("shared memory as text", lambda d: d.update(max_shared_bytes_per_block="227 KiB"), "max_shared"),
            ("no op", lambda d: d.update(op=[]), "no [[op]]"),
        ]
        for what, f, words in cases:
            with self.subTest(what):
                with self.assertRaises(schemas.SchemaError) as cm:
                    model_table.parse(edit(f))
                self.assertIn(words, str(cm.exception))

    def test_the_check_fails_on_a_stale_header_and_passes_on_the_files(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            for rel in (model_table.DATA, model_table.HEADER):
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(ROOT / rel, root / rel)
            self.assertEqual(model_table.main(["--root", str(root), "--check"]), 0)
            data = (root / model_table.DATA).read_text().replace("widths = [4]\n", "widths = [4, 8]\n", 1)
            (root / model_table.DATA).write_text(data)
            self.assertEqual(model_table.main(["--root", str(root), "--check"]), 1)
            self.assertEqual(model_table.main(["--root", str(root), "--write"]), 0)
            self.assertEqual(model_table.main(["--root", str(root), "--check"]), 0)


class OneEvaluator(unittest.TestCase):
    def test_no_python_eval_reads_a_lane_expression(self):
        files = sorted(ROOT.glob("docs/scripts/*.py")) + sorted(ROOT.glob("python/banklab/**/*.py")) + \
            sorted(ROOT.glob("grader/*.py"))
        for f in files:
            for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("eval", "exec"):
                    self.fail(f"{f.relative_to(ROOT)}:{node.lineno}: {node.func.id}(): use banklab.lab.expr")

    def test_the_generator_accepts_every_op_of_the_model_with_c_semantics(self):
        gen = next((p for p in (ROOT / "python/banklab/lab/gen.py", ROOT / "grader/gen_lab.py") if p.is_file()))
        import importlib.util
        spec = importlib.util.spec_from_file_location("banklab_gen_under_test", gen)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        # The generator parses with the description's checks, whose ops are the model's.
        self.assertIs(banklab_description.OPS, banklab_expr.OPS)
        for op, widths in banklab_expr.OPS.items():
            self.assertEqual(mod.split_access(f"{op} {widths[-1]} lane*{widths[-1]}")[:2], (op, widths[-1]))
        self.assertEqual(banklab_description.eval_expr("(lane-16)/3", lane=0), -5)
        with self.assertRaisesRegex(DescriptionError, r"column 2: unknown name 'row'"):
            mod.parse_expr("(row*32)", ("lane",))


if __name__ == "__main__":
    unittest.main()
