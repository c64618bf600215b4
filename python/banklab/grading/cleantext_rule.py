"""The cleaning rule of text a student chose, grader/judge/clean_text.toml: read here for Python
(banklab.grading.cleantext) and made into the judge's C++, grader/judge/clean_text_rule.hpp (committed;
the configure step runs --check). Which characters are shown as escapes, which a multi-line message
keeps, whether a CR before a newline goes, the cut sizes and how a text is cut: one file, two cleaners.

  python3 python/banklab_run.py -m banklab.grading.cleantext_rule --write   # after a change of the file

A file that is not the rule raises banklab.schemas.SchemaError naming the key. Standard library only.
"""
from __future__ import annotations

import dataclasses
import sys
import tomllib
from pathlib import Path

from banklab import committed, schemas

ROOT = Path(__file__).resolve().parents[3]   # the course: python/banklab/grading is three levels down
DATA = "grader/judge/clean_text.toml"
HEADER = "grader/judge/clean_text_rule.hpp"


@dataclasses.dataclass(frozen=True)
class Rule:
    message_bytes: int
    name_bytes: int
    kept_in_messages: frozenset[int]
    drop_cr_before_newline: bool
    escaped: tuple[tuple[int, int], ...]   # inclusive ranges of code points, ascending, apart
    cut_head_percent: int                  # of the room the marker leaves, the start's share
    cut_marker: str                        # in a multi-line message; {n}: the bytes left out
    cut_marker_one_line: str               # on one line

    def marker(self, n: int, multiline: bool) -> str:
        """The cut's marker saying `n` bytes were left out, in a multi-line message or on one line."""
        return (self.cut_marker if multiline else self.cut_marker_one_line).replace("{n}", str(n))

    def is_escaped(self, cp: int, multiline: bool) -> bool:
        """True when code point `cp` is shown as an escape (in a multi-line message or on one line)."""
        if multiline and cp in self.kept_in_messages:
            return False
        lo, hi = 0, len(self.escaped)
        while lo < hi:                     # the last range that starts at or before cp
            mid = (lo + hi) // 2
            if self.escaped[mid][0] <= cp:
                lo = mid + 1
            else:
                hi = mid
        return lo > 0 and cp <= self.escaped[lo - 1][1]


def _count(data: dict, key: str) -> int:
    v = data.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or v < 64:
        raise schemas.SchemaError(f"{DATA}: {key} is {v!r}, not a number of bytes (64 or more)")
    return v


def parse(data: object) -> Rule:
    data = schemas.check(data, schemas.CLEAN_TEXT, DATA)
    ranges = []
    for i, r in enumerate(data.get("escaped") or []):
        if (not isinstance(r, dict) or set(r) != {"from", "to", "what"}
                or not all(isinstance(r[k], int) and not isinstance(r[k], bool) for k in ("from", "to"))
                or not 0 <= r["from"] <= r["to"] <= 0x10FFFF):
            raise schemas.SchemaError(f"{DATA}: escaped range {i + 1} is not {{from, to, what}} with from <= to "
                                      f"<= 0x10FFFF")
        if ranges and r["from"] <= ranges[-1][1] + 1:
            raise schemas.SchemaError(f"{DATA}: escaped range {i + 1} is not after the one before it, apart")
        ranges.append((r["from"], r["to"]))
    if not ranges or ranges[0][0] != 0:
        raise schemas.SchemaError(f"{DATA}: escaped must start with the C0 controls (from = 0x0000)")
    kept = data.get("kept_in_messages")
    if not isinstance(kept, list) or not set(kept) <= {0x0A, 0x09}:
        raise schemas.SchemaError(f"{DATA}: kept_in_messages is {kept!r}: at most newline (0x0A) and tab (0x09)")
    drop = data.get("drop_cr_before_newline")
    if not isinstance(drop, bool):
        raise schemas.SchemaError(f"{DATA}: drop_cr_before_newline is {drop!r}, not true or false")
    head = data.get("cut_head_percent")
    if isinstance(head, bool) or not isinstance(head, int) or not 0 <= head <= 100:
        raise schemas.SchemaError(f"{DATA}: cut_head_percent is {head!r}, not a percentage (0 to 100)")
    markers = []
    for key, newlines in (("cut_marker", True), ("cut_marker_one_line", False)):
        m = data.get(key)
        if (not isinstance(m, str) or m.count("{n}") != 1 or not m.isascii()
                or any(not (c.isprintable() or (newlines and c == "\n")) for c in m)):
            raise schemas.SchemaError(f"{DATA}: {key} is {m!r}: printable ASCII{' and newlines' if newlines else ''} "
                                      "with one {n} (the bytes left out)")
        markers.append(m)
    return Rule(_count(data, "message_bytes"), _count(data, "name_bytes"), frozenset(kept), drop, tuple(ranges),
                head, *markers)


def read(root: Path | None = None) -> Rule:
    path = Path(root or ROOT) / DATA
    try:
        return parse(tomllib.loads(path.read_text(encoding="utf-8")))
    except OSError as e:
        raise schemas.SchemaError(f"{DATA}: cannot read it ({e.strerror})") from None
    except tomllib.TOMLDecodeError as e:
        raise schemas.SchemaError(f"{DATA}: not TOML ({e})") from None


def _cxx_string(s: str) -> str:
    """A C++ string literal of `s` (printable ASCII and newlines: parse() allows no other)."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def cpp_header(r: Rule) -> str:
    """grader/judge/clean_text_rule.hpp for rule `r`."""
    L = [f"// Generated by python/banklab/grading/cleantext_rule.py from {DATA}: do not edit (after a",
         "// change of that file: python3 python/banklab_run.py -m banklab.grading.cleantext_rule --write).",
         "// The cleaning rule clean_text.cpp applies; Python's banklab.grading.cleantext reads the same file.",
         "#pragma once", "", "#include <cstddef>", "", "namespace judge::clean_rule {", "",
         "/// How much of a student's text one message quotes, in bytes.",
         f"inline constexpr std::size_t kMessageBytes = {r.message_bytes};",
         "/// How much of a name is shown, in bytes.",
         f"inline constexpr std::size_t kNameBytes = {r.name_bytes};",
         "/// A multi-line message keeps its newlines and its tabs as they are.",
         f"inline constexpr bool kKeepNewline = {'true' if 0x0A in r.kept_in_messages else 'false'};",
         f"inline constexpr bool kKeepTab = {'true' if 0x09 in r.kept_in_messages else 'false'};",
         "/// A multi-line message drops a CR right before a newline.",
         f"inline constexpr bool kDropCrBeforeNewline = {'true' if r.drop_cr_before_newline else 'false'};",
         "/// A text over its limit is cut after it is escaped: of the room the marker leaves, this percentage",
         "/// (rounded down) is its start, the rest its end; the marker between them, {n} the bytes left out.",
         f"inline constexpr std::size_t kCutHeadPercent = {r.cut_head_percent};",
         f"inline constexpr const char* kCutMarker = {_cxx_string(r.cut_marker)};",
         f"inline constexpr const char* kCutMarkerOneLine = {_cxx_string(r.cut_marker_one_line)};", "",
         "/// The code points shown as escapes: inclusive ranges, ascending, apart.",
         "struct Range {", "  char32_t from;  ///< the first code point", "  char32_t to;    ///< the last", "};",
         "inline constexpr Range kEscaped[] = {"]
    L += [f"    {{0x{a:04X}, 0x{b:04X}}}," for a, b in r.escaped]
    L += ["};", "", "}  // namespace judge::clean_rule", ""]
    return "\n".join(L)


def main(argv: list[str] | None = None) -> int:
    return committed.main(argv, "banklab.grading.cleantext_rule", DATA, HEADER, lambda root: cpp_header(read(root)),
                          ROOT)


if __name__ == "__main__":
    sys.exit(main())
