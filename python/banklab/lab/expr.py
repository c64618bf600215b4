"""The lane-expression language, in Python: the one evaluator every Python tool of the course uses.

A lab's description writes a warp's addresses as an access line, `OP WIDTH EXPRESSION`, e.g.

    ld 8 lane * (32 + x) * 8

where EXPRESSION gives each lane's BYTE offset. The reference is the C++ evaluator of
`banklab explain` (tools/lib/include/banklab_cli/expr.hpp, tools/lib/src/expr.cpp); this module
has exactly its grammar, precedence and C semantics, and its messages:

    expr   := xor ('|' xor)*
    xor    := and ('^' and)*
    and    := shift ('&' shift)*
    shift  := sum (('<<' | '>>') sum)*
    sum    := term (('+' | '-') term)*
    term   := unary (('*' | '/' | '%') unary)*
    unary  := ('-' | '+' | '~') unary | atom
    atom   := NUMBER | VARIABLE | '(' expr ')'
    NUMBER := decimal digits | '0x' hex digits

Values are 64-bit signed integers; overflow, division by zero and shifts outside 0..62 are errors;
`/` and `%` truncate toward zero as in C (-7 / 2 == -3, -7 % 2 == -1, unlike Python's // and %).
The C++ evaluator knows one variable, `lane`; here the caller names the variables (default
`("lane",)`, the C++ language exactly): a description's question with an unknown also has `x`,
its `value` key has none. tools/tests/expr_differential.py checks both evaluators on the same
expressions (CTest cli.ExprPythonAgreesWithCpp); python/tests/test_expr.py is the unit test.

The op table (the model's ops and the widths each allows, LEGAL_WIDTHS, MAX_SHARED_BYTES) is not
written here: it is common/data/ops.toml, read by banklab.lab.model_table, the file the C++ model's
header (common/include/banklab/model_table.hpp) is generated from; the differential test compares
`OPS` with the op table the compiled model prints.

Standard library only (Python 3.11).
"""
from __future__ import annotations

import dataclasses
import re
import sys

from banklab.lab import model_table

__all__ = ["ExprError", "Expr", "parse", "evaluate", "OPS", "LEGAL_WIDTHS",
           "MAX_SHARED_BYTES", "WARP_SIZE", "Access", "parse_op", "parse_width", "check_width",
           "parse_mask", "split_access", "access", "parse_access", "quote_token"]

MAX_LENGTH = 4096   # LaneExpr::kMaxLength
MAX_DEPTH = 200     # LaneExpr::kMaxDepth
WARP_SIZE = 32
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


class ExprError(ValueError):
    """A syntax or evaluation error. str() reads "column N: problem" (syntax) or "lane L: problem
    (column N)" (evaluation), as the C++ ExprError's what(); `column` is 1-based, 0 when the
    problem is not about a place."""

    def __init__(self, column: int, message: str):
        super().__init__(message)
        self.column = column
        self.message = message


def quote_token(tok: str, limit: int = 24) -> str:
    """banklab::quote_token: 'tok', at most 24 bytes, control and non-ASCII bytes as \\xNN."""
    b = _bytes(tok)
    s = "".join(f"\\x{c:02x}" if c < 0x20 or c >= 0x7F else chr(c) for c in b[:limit])
    return "'" + s + ("..." if len(b) > limit else "") + "'"


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


# ---- parsing ------------------------------------------------------------------------------------
# The parse makes a postfix program: ("num", v), ("var", name), ("neg"|"plus"|"not", col),
# (binary operator text, col). Its order is the C++ evaluator's (left operand, right operand,
# operator), so the first error found is the same.

_IDENT = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_LEVELS = (("|",), ("^",), ("&",), ("<<", ">>"), ("+", "-"), ("*", "/", "%"))


def _variables_text(variables: tuple[str, ...]) -> tuple[str, str]:
    """("a number, 'lane' or '('", "the only variable is 'lane'") for the messages."""
    q = [f"'{v}'" for v in variables]
    atom_text = ", ".join(["a number"] + q) + " or '('"
    if not variables:
        names = "the expression uses numbers only"
    elif len(variables) == 1:
        names = f"the only variable is {q[0]}"
    else:
        names = "the variables are " + ", ".join(q[:-1]) + f" and {q[-1]}"
    return atom_text, names


class _Parser:
    def __init__(self, text: str, variables: tuple[str, ...]):
        # One character per byte, as the C++ sees the text (columns count bytes).
        self.s = _bytes(text).decode("latin-1")
        self.variables = variables
        self.atom_text, self.names_text = _variables_text(variables)
        self.pos = 0
        self.depth = 0
        self.code: list[tuple] = []

    def fail(self, what: str):
        col = self.pos + 1
        raise ExprError(col, f"column {col}: {what}")

    def quote(self, start: int, n: int) -> str:
        return quote_token(self.s[start:start + n].encode("latin-1").decode("utf-8", "surrogateescape"))

    def skip_space(self):
        s = self.s
        while self.pos < len(s) and s[self.pos] in " \t":
            self.pos += 1

    def accept(self, op: str) -> bool:
        self.skip_space()
        if not self.s.startswith(op, self.pos):
            return False
        self.pos += len(op)
        return True

    def parse_all(self):
        self.parse_level(0)
        self.skip_space()
        if self.pos < len(self.s):
            if self.s[self.pos] == ")":
                self.fail("unmatched ')'")
            self.fail("expected an operator or the end of the expression, found " + self.quote(self.pos, 8))

    def parse_level(self, level: int):
        if level == len(_LEVELS):
            return self.parse_unary()
        self.parse_level(level + 1)
        while True:
            self.skip_space()
            for op in _LEVELS[level]:
                col = self.pos + 1
                if self.accept(op):
                    self.parse_level(level + 1)
                    self.code.append((op, col))
                    break
            else:
                return

    def parse_unary(self):
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                self.fail(f"expression nested deeper than {MAX_DEPTH} levels")
            self.skip_space()
            col = self.pos + 1
            for op, kind in (("-", "neg"), ("+", "plus"), ("~", "not")):
                if self.accept(op):
                    self.parse_unary()
                    self.code.append((kind, col))
                    return
            self.parse_atom()
        finally:
            self.depth -= 1

    def parse_atom(self):
        self.skip_space()
        s, col = self.s, self.pos + 1
        if self.pos >= len(s):
            # The C++ names its one variable, "lane" (`try "lane*4"` assumes it).
            if self.pos == 0:
                self.fail("the expression is empty" + (' (try "lane*4")' if "lane" in self.variables else ""))
            self.fail(f"expected {self.atom_text} but the expression ends")
        c = s[self.pos]
        if c == "(":
            self.pos += 1
            self.parse_level(0)
            self.skip_space()
            if self.pos >= len(s) or s[self.pos] != ")":
                if self.pos >= len(s):
                    self.fail(f"missing ')' for the '(' at column {col}")
                self.fail(f"expected ')' for the '(' at column {col}, found " + self.quote(self.pos, 8))
            self.pos += 1
            return
        end = self.pos
        while end < len(s) and ord(s[end]) < 128 and ord(s[end]) in _IDENT:
            end += 1
        tok = s[self.pos:end]
        if "0" <= c <= "9":
            base, digits = 10, tok
            if len(tok) >= 2 and tok[0] == "0" and tok[1] in "xX":
                base, digits = 16, tok[2:]
            allowed = "0123456789abcdefABCDEF" if base == 16 else "0123456789"
            if not digits or any(ch not in allowed for ch in digits):
                self.fail(self.quote(self.pos, end - self.pos) + " is not a number (decimal, or hexadecimal with 0x)")
            v = int(digits, base)
            if v > INT64_MAX:
                self.fail("number " + self.quote(self.pos, end - self.pos) + " is too large")
            self.pos = end
            self.code.append(("num", v))
            return
        if tok:
            if tok not in self.variables:
                self.fail("unknown name " + self.quote(self.pos, end - self.pos) + f" ({self.names_text})")
            self.pos = end
            self.code.append(("var", tok))
            return
        if c == ")":
            self.fail(f"expected {self.atom_text} before ')'")
        self.fail("unexpected character " + self.quote(self.pos, 1) +
                  " (operators: + - * / % & | ^ << >> ~ and parentheses)")


class Expr:
    """A parsed expression: `Expr(text)` (or parse()) raises ExprError with the column of the first
    problem; `eval(lane=3)` (every variable by name) the value, or ExprError on overflow, division
    by zero or a bad shift."""

    def __init__(self, text: str, variables: tuple[str, ...] | list[str] = ("lane",)):
        self.text = text
        self.variables = tuple(variables)
        if len(_bytes(text)) > MAX_LENGTH:
            raise ExprError(MAX_LENGTH + 1, f"the expression is longer than {MAX_LENGTH} characters")
        p = _Parser(text, self.variables)
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 12 * MAX_DEPTH + 500))  # 200 levels of 8 calls each
        try:
            p.parse_all()
        finally:
            sys.setrecursionlimit(limit)
        self.code = tuple(p.code)
        self._uses = frozenset(c[1] for c in self.code if c[0] == "var")

    def uses(self) -> set[str]:
        """The variables the expression uses."""
        return set(self._uses)

    def eval(self, **env: int) -> int:
        missing = sorted(v for v in self._uses if v not in env)
        if missing:
            raise TypeError(f"eval() needs a value for {', '.join(missing)}")
        where = ", ".join(f"{k} {env[k]}" if k == "lane" else f"{k} = {env[k]}"
                          for k in self.variables if k in env)
        stack: list[int] = []
        for op, arg in self.code:
            if op == "num":
                stack.append(arg)
                continue
            if op == "var":
                stack.append(int(env[arg]))
                continue

            def err(what: str) -> ExprError:
                return ExprError(arg, (f"{where}: " if where else "") + f"{what} (column {arg})")
            if op in ("neg", "plus", "not"):
                a = stack.pop()
                if op == "neg":
                    if a == INT64_MIN:
                        raise err("overflow in '-'")
                    stack.append(-a)
                elif op == "not":
                    stack.append(~a)
                else:
                    stack.append(a)
                continue
            b = stack.pop()
            a = stack.pop()
            if op in ("+", "-", "*"):
                r = a + b if op == "+" else a - b if op == "-" else a * b
                if not INT64_MIN <= r <= INT64_MAX:
                    raise err(f"overflow in '{op}'")
            elif op in ("/", "%"):
                if b == 0:
                    raise err("division by zero" if op == "/" else "remainder of division by zero")
                if a == INT64_MIN and b == -1:
                    if op == "%":
                        stack.append(0)
                        continue
                    raise err("overflow in '/'")
                q = abs(a) // abs(b)
                if (a < 0) != (b < 0):
                    q = -q                    # C: the quotient truncates toward zero
                r = q if op == "/" else a - q * b  # and a == (a / b) * b + a % b
            elif op in ("<<", ">>"):
                if b < 0 or b > 62:
                    raise err(f"shift by {b} (a shift count must be 0 to 62)")
                if op == ">>":
                    r = a >> b                # arithmetic for negative values, as C++20
                else:
                    if a < 0:
                        raise err("left shift of a negative value")
                    if a > (INT64_MAX >> b):
                        raise err("overflow in '<<'")
                    r = a << b
            else:
                r = a & b if op == "&" else a ^ b if op == "^" else a | b
            stack.append(r)
        return stack[0]


def parse(text: str, variables=("lane",)) -> Expr:
    return Expr(text, variables)


def evaluate(text: str, **env: int) -> int:
    """The value of `text` whose only variables are the ones given: evaluate("3 ^ 6") == 5,
    evaluate("lane * 4", lane=3) == 12."""
    return Expr(text, tuple(env)).eval(**env)


# ---- the op table: common/data/ops.toml, which the C++ model's header is generated from ---------

_TABLE = model_table.read()
OPS: dict[str, tuple[int, ...]] = _TABLE.ops
LEGAL_WIDTHS: tuple[int, ...] = _TABLE.legal_widths
MAX_SHARED_BYTES: int = _TABLE.max_shared_bytes


# ---- access lines --------------------------------------------------------------------------------

def _is_number(tok: str, base: int = 10, signed: bool = False) -> bool:
    digits = tok[1:] if signed and tok.startswith("-") else tok
    allowed = "0123456789abcdefABCDEF" if base == 16 else "0123456789"
    return bool(digits) and all(c in allowed for c in digits)


def _widths_text(ws) -> str:
    return ", ".join(map(str, ws))


def parse_op(tok: str) -> str:
    """banklab::parse_op: the op, or ExprError "unknown op 'x' (expected one of 'ld', ...)"."""
    if tok in OPS:
        return tok
    names = ", ".join(f"'{op}'" for op in OPS)
    raise ExprError(0, f"unknown op {quote_token(tok)} (expected one of {names})")


def parse_width(tok: str) -> int:
    """banklab::parse_width: a decimal width among LEGAL_WIDTHS (of any op)."""
    if not _is_number(tok, signed=True) or not -(1 << 31) <= int(tok) < (1 << 31):
        raise ExprError(0, f"width {quote_token(tok)} is not a number")
    w = int(tok)
    if w not in LEGAL_WIDTHS:
        raise ExprError(0, f"width {w} is not one of {_widths_text(LEGAL_WIDTHS)}")
    return w


def check_width(op: str, width: int) -> None:
    """banklab::check_width: the width is legal for the op."""
    if width not in OPS[op]:
        raise ExprError(0, f"{op} width {width} is not one of {_widths_text(OPS[op])}")


def parse_mask(tok: str) -> int:
    """banklab::parse_mask: up to 8 hexadecimal digits, with or without 0x."""
    m = tok[2:] if len(tok) > 2 and tok[0] == "0" and tok[1] in "xX" else tok
    if len(m) > 8 or not _is_number(m, 16):
        raise ExprError(0, f"mask {quote_token(tok)} is not a 32-bit hexadecimal number")
    return int(m, 16)


@dataclasses.dataclass(frozen=True)
class Access:
    """One warp's access: op, width, mask and the byte offset of each of the 32 lanes (0 for an
    inactive lane, as banklab::WarpAccess)."""
    op: str
    width: int
    mask: int
    offsets: tuple[int, ...]

    def active(self) -> list[int]:
        """The offsets of the active lanes, in lane order."""
        return [o for lane, o in enumerate(self.offsets) if self.mask >> lane & 1]


def access(op: str, width: int, mask: int, expr: str | Expr, **env: int) -> Access:
    """banklab::cli::access_from_expression: every active lane's offset, checked as the model
    checks it (not negative, inside shared memory, a multiple of the width). `env` gives the
    variables other than `lane` (x=...)."""
    e = expr if isinstance(expr, Expr) else Expr(expr, ("lane",) + tuple(env))
    offsets = [0] * WARP_SIZE
    where_x = "".join(f", {k} = {v}" for k, v in env.items())
    for i in range(WARP_SIZE):
        if not mask >> i & 1:
            continue   # inactive lanes: offset 0, never evaluated
        v = e.eval(lane=i, **env)
        if v < 0:
            raise ExprError(0, f"lane {i}{where_x}: byte offset {v} is negative")
        if v > MAX_SHARED_BYTES:
            raise ExprError(0, f"lane {i}{where_x}: byte offset {v} is beyond the largest shared memory of a "
                               f"block ({MAX_SHARED_BYTES} bytes)")
        offsets[i] = v
    # banklab::validate
    if width not in OPS[op]:
        raise ExprError(0, f"{op} width must be {_widths_text(OPS[op])} bytes, not {width}")
    for i, off in enumerate(offsets):
        if off % width:
            raise ExprError(0, f"lane {i}: offset {off} is not a multiple of the width {width}")
        if off > MAX_SHARED_BYTES - width:
            raise ExprError(0, f"lane {i}: offset {off} is beyond the largest shared memory of a block "
                               f"({MAX_SHARED_BYTES} bytes)")
    return Access(op, width, mask, tuple(offsets))


_BLANK = " \t\r"


def split_access(line: str) -> tuple[str, int, str]:
    """'ld 4 (lane*32+5)*4' -> ('ld', 4, '(lane*32+5)*4'): the op and width checked against the
    model (the expression is the rest of the line, not parsed here). The mask is not part of the
    line (`|` is an operator of the expression): a description gives it in its own key, `banklab
    explain` with --mask."""
    m = re.fullmatch(r"[ \t\r]*([^ \t\r]*)[ \t\r]*([^ \t\r]*)[ \t\r]*(.*)", line, re.S)
    op_tok, width_tok, expr = m.groups()
    if not expr:
        found = 0 if not op_tok else 1 if not width_tok else 2
        raise ExprError(0, f"expected 'OP WIDTH EXPRESSION' (e.g. ld 4 lane*33*4), found only {found} field(s)")
    op = parse_op(op_tok)
    width = parse_width(width_tok)
    check_width(op, width)
    return op, width, expr


def parse_access(line: str, mask: str | int = 0xFFFFFFFF, **env: int) -> Access:
    """A whole access line, `OP WIDTH EXPRESSION`, over the lanes of `mask` (a hexadecimal string
    as parse_mask reads it, or an int), with the variables of `env` besides `lane`."""
    op, width, expr = split_access(line)
    m = parse_mask(mask) if isinstance(mask, str) else mask
    return access(op, width, m, expr, **env)
