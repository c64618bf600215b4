"""The bank model's op and width table, common/data/ops.toml: read here for Python (banklab.lab.expr's
OPS, LEGAL_WIDTHS, MAX_SHARED_BYTES) and made into C++, common/include/banklab/model_table.hpp, the
header the model (common/include/banklab/model.hpp) and every C++ tool include. The header is
committed, so that a compile with nothing but -Icommon/include (a lab's kernel, the judge's header
snapshot, the device scripts) sees it; the configure step runs `--check` and refuses a header that
is not this file's (cmake/BanklabModelTable.cmake), as it refuses a broken lab description.

  python3 python/banklab_run.py -m banklab.lab.model_table --write   # after a change of ops.toml
  python3 python/banklab_run.py -m banklab.lab.model_table --check   # exit 1 when the header is stale

A file that is not the table (another schema, an op without a name, a width that is no legal width,
a name twice) raises banklab.schemas.SchemaError naming the file and the key. Standard library only.
"""
from __future__ import annotations

import dataclasses
import re
import sys
import tomllib
from pathlib import Path

from banklab import committed, schemas

ROOT = Path(__file__).resolve().parents[3]   # the course: python/banklab/lab is three levels down
DATA = "common/data/ops.toml"
HEADER = "common/include/banklab/model_table.hpp"
_NAME = re.compile(r"^[a-z][a-z0-9]*$")
_ENUMERATOR = re.compile(r"^[A-Z][A-Za-z0-9]*$")


@dataclasses.dataclass(frozen=True)
class ModelTable:
    ops: dict[str, tuple[int, ...]]   # name -> its widths, in declaration order
    enumerators: tuple[str, ...]      # the C++ names, in the same order
    abouts: tuple[str, ...]
    legal_widths: tuple[int, ...]
    max_shared_bytes: int


def _widths(value: object, where: str) -> tuple[int, ...]:
    if (not isinstance(value, list) or not value
            or not all(isinstance(w, int) and not isinstance(w, bool) and w > 0 for w in value)
            or list(value) != sorted(set(value))):
        raise schemas.SchemaError(f"{where} is {value!r}, not a list of widths in bytes, ascending, each once")
    return tuple(value)


def parse(data: object, where: str = DATA) -> ModelTable:
    """The table `data` (ops.toml as read) holds; SchemaError where it is not one."""
    data = schemas.check(data, schemas.OPS, where)
    legal = _widths(data.get("legal_widths"), f"{where}: legal_widths")
    shared = data.get("max_shared_bytes_per_block")
    if isinstance(shared, bool) or not isinstance(shared, int) or shared <= max(legal):
        raise schemas.SchemaError(f"{where}: max_shared_bytes_per_block is {shared!r}, not a number of bytes "
                                  f"above the widest access")
    rows = data.get("op")
    if not isinstance(rows, list) or not rows:
        raise schemas.SchemaError(f"{where}: no [[op]] table")
    ops: dict[str, tuple[int, ...]] = {}
    enums: list[str] = []
    abouts: list[str] = []
    for i, row in enumerate(rows):
        at = f"{where}: op {i + 1}"
        if not isinstance(row, dict) or set(row) != {"enumerator", "name", "widths", "about"}:
            raise schemas.SchemaError(f"{at} must have exactly enumerator, name, widths and about")
        name, enum, about = row["name"], row["enumerator"], row["about"]
        if not isinstance(name, str) or not _NAME.match(name):
            raise schemas.SchemaError(f"{at}: name {name!r} is not a lower-case word")
        if not isinstance(enum, str) or not _ENUMERATOR.match(enum):
            raise schemas.SchemaError(f"{at}: enumerator {enum!r} is not a C++ name in CamelCase")
        if not isinstance(about, str) or not about.strip() or "*/" in about:
            raise schemas.SchemaError(f"{at}: about is not a sentence")
        if name in ops or enum in enums:
            raise schemas.SchemaError(f"{at}: {name!r} / {enum!r} is there twice")
        widths = _widths(row["widths"], f"{at} ({name}): widths")
        if not set(widths) <= set(legal):
            raise schemas.SchemaError(f"{at} ({name}): widths {list(widths)} are not all legal widths {list(legal)}")
        ops[name] = widths
        enums.append(enum)
        abouts.append(" ".join(about.split()))
    return ModelTable(ops, tuple(enums), tuple(abouts), legal, shared)


def read(root: Path | None = None) -> ModelTable:
    """The table of the course at `root` (this one by default)."""
    path = Path(root or ROOT) / DATA
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise schemas.SchemaError(f"{DATA}: cannot read it ({e.strerror})") from None
    except tomllib.TOMLDecodeError as e:
        raise schemas.SchemaError(f"{DATA}: not TOML ({e})") from None
    return parse(data)


def _wrap(text: str, lead: str, width: int = 110) -> list[str]:
    out, line = [], lead
    for word in text.split():
        if len(line) + 1 + len(word) > width and line.strip() not in ("", lead.strip()):
            out.append(line)
            line = lead
        line += ("" if line == lead else " ") + word
    out.append(line)
    return out


def cpp_header(t: ModelTable) -> str:
    """common/include/banklab/model_table.hpp for table `t`."""
    w = len(t.legal_widths)
    L = ["/// @file model_table.hpp",
         "/// @brief The bank model's op and width table, generated from common/data/ops.toml by",
         "///        python/banklab/lab/model_table.py: do not edit (after a change of ops.toml:",
         "///        python3 python/banklab_run.py -m banklab.lab.model_table --write). Python reads the same file.",
         "#pragma once", "", "#include <cstdint>", "", "namespace banklab {", "",
         "/// The legal widths of one lane's access, in bytes: the one list every parser, check and",
         "/// message uses (`char`/`short`/`int`/`float2`/`float4`-sized accesses).",
         f"inline constexpr int kLegalWidths[] = {{{', '.join(map(str, t.legal_widths))}}};",
         "/// Largest dynamic shared memory one block may opt in to on sm_90 "
         f"({t.max_shared_bytes // 1024} KiB); the model",
         "/// rejects offsets beyond it. The measured bank rule holds over this whole range.",
         f"inline constexpr std::uint32_t kMaxSharedBytesPerBlock = {t.max_shared_bytes}u;", "",
         "/// The kind of warp-wide shared-memory instruction. Text names (parse_op, to_string):",
         "/// " + ", ".join(f'"{n}"' for n in t.ops) + ".",
         "enum class Op : std::uint8_t {"]
    names = list(t.ops)
    for i, (enum, about) in enumerate(zip(t.enumerators, t.abouts)):
        first = f"  {enum}{',' if i + 1 < len(names) else ''}"
        lines = _wrap(f'"{names[i]}": {about}', "", 86)
        L.append(f"{first:<20}///< {lines[0]}")
        L += [f"{'':<20}///< {x}" for x in lines[1:]]
    L += ["};", "",
          "/// Every Op, in declaration order (for loops over all kinds).",
          "inline constexpr Op kAllOps[] = {"]
    L += _wrap(", ".join(f"Op::{e}" for e in t.enumerators) + "};", "    ", 104)
    L += ["",
          "/// One row of the op table: an op, its name in access lines, the widths it allows (the first",
          "/// `count` of `widths`).",
          "struct OpInfo {",
          "  Op op;              ///< the op",
          "  const char* name;   ///< its name in access lines (parse_op, to_string)",
          f"  int widths[{w}];".ljust(22) + "///< the widths it allows, ascending (the first `count`; 0 after them)",
          "  int count;          ///< how many of `widths` it allows",
          "};", "",
          "/// The op table, in kAllOps' order.",
          "inline constexpr OpInfo kOpTable[] = {"]
    for enum, (name, widths) in zip(t.enumerators, t.ops.items()):
        padded = list(widths) + [0] * (w - len(widths))
        L.append(f'    {{Op::{enum}, "{name}", {{{", ".join(map(str, padded))}}}, {len(widths)}}},')
    L += ["};", "", "}  // namespace banklab", ""]
    return "\n".join(L)


def main(argv: list[str] | None = None) -> int:
    return committed.main(argv, "banklab.lab.model_table", DATA, HEADER, lambda root: cpp_header(read(root)), ROOT)


if __name__ == "__main__":
    sys.exit(main())
