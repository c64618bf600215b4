"""The keys of a lab's description (labs/NN_name/judge/lab.toml) as data: every key, its type,
whether it is required and what it means, section by section, and the one check of the
description's shape against them (check_shape). banklab.lab.description.check() runs it first and
then checks what the keys say (ops, widths, expressions, names, answers); both the lab list
(banklab.lab.labs) and the generator (banklab.lab.gen) call that one validator. Standard library
only. docs/dev/LAB_CONTRACT.md, "The keys", explains the format to a lab's author.

  DescriptionError          a description or answers file that does not parse or is invalid
  TOP, POINTS, ..., ANSWER  {key: Key(type, required, what)} for each section
  SECTIONS                  which key of which section holds which section (where messages name it)
  check_keys(where, t, s)   table `t` against section `s`: unknown, missing, ill-typed keys
  check_shape(d)            the whole description, every section
"""
from __future__ import annotations

import dataclasses
import re


class DescriptionError(ValueError):
    """A lab description (or its answers file) that does not parse or is invalid; the message
    names the file (where the caller knows it) and the key."""


@dataclasses.dataclass(frozen=True)
class Key:
    """One key of a section: its type (a name of TYPES), whether it must be there, what it means."""
    type: str
    required: bool
    what: str


#: A C++ identifier (names that become C++: namespaces, constants, tables, tests, ...).
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _positive_sizes(v):
    return isinstance(v, list) and len(v) >= 1 and all(
        isinstance(s, list) and len(s) >= 1 and all(type(n) is int and n > 0 for n in s) for s in v)


#: Each type: (the test of a value, what the message says it must be).
TYPES = {
    "str": (lambda v: isinstance(v, str), "a string"),
    "line": (lambda v: isinstance(v, str) and v.strip() != "" and "\n" not in v, "a non-empty string of one line"),
    "ident": (lambda v: isinstance(v, str), "a string (a C++ identifier)"),
    "int": (lambda v: type(v) is int, "an integer"),
    "bool": (lambda v: type(v) is bool, "true or false"),
    "table": (lambda v: isinstance(v, dict), "a table"),
    "strs": (lambda v: isinstance(v, list) and all(isinstance(s, str) for s in v), "a list of strings"),
    "idents": (lambda v: isinstance(v, list) and all(isinstance(s, str) for s in v),
               "a list of strings (C++ identifiers)"),
    "patterns": (lambda v: isinstance(v, list) and all(isinstance(s, str) and s for s in v),
                 "a list of test names or shell patterns"),
    "points": (lambda v: isinstance(v, dict) and all(isinstance(p, (int, float)) and not isinstance(p, bool)
                                                     and p >= 0 for p in v.values()),
               "a table of test names to points >= 0"),
    "ints": (lambda v: isinstance(v, list) and all(type(s) is int for s in v), "a list of integers"),
    "dims": (lambda v: isinstance(v, list) and len(v) >= 1 and all(isinstance(s, (str, int)) for s in v),
             "a non-empty list of C++ expressions (strings)"),
    "sizes": (_positive_sizes, "a non-empty list of lists of positive integers"),
    "tables": (lambda v: isinstance(v, list), "an array of tables"),
    "at_minimum": (lambda v: isinstance(v, dict) or (isinstance(v, list) and len(v) >= 1 and all(
        isinstance(t, dict) for t in v)), "a table { test = \"...\", hint = \"...\" } or a list of them"),
}
#: The types whose strings must be C++ identifiers.
IDENT_TYPES = ("ident", "idents")

# ---- the sections, as data ----------------------------------------------------------------------

TOP = {
    "title": Key("line", True, "the lab's title: the README's lab table and the site"),
    "summary": Key("line", True, "what the lab teaches, one line: the README's lab table and the site"),
    "namespace": Key("ident", True, "kernel.cu's C++ namespace"),
    "points": Key("table", True, "points.gates and the optional points.tests (grader/points/README.md); dotted "
                                 "keys, not a [points] header, so that the keys below stay at the top level"),
    "selftest": Key("table", False, "selftest.generic_cheats: whether the course's lab-agnostic cheats run on it"),
    "probe": Key("table", True, "[probe] constants: what the probe reports"),
    "tables": Key("tables", True, "[[tables]]: the access functions the probe tabulates"),
    "instructions": Key("tables", True, "[[instructions]]: the shared-memory instructions of the kernels"),
    "launches": Key("tables", True, "[[launches]]: the launchers' calls"),
    "questions": Key("tables", True, "[[questions]]: one per constexpr of kernel.cu's namespace predict, in order"),
    "kernels": Key("tables", False, "[[kernels]]: the kernels the GPU tier finds in the compiled code"),
    "variants": Key("table", False, "[variants]: per-student variants, checked by banklab.lab.variants "
                    "(docs/dev/VARIANTS.md)"),
    "gpu": Key("table", False, "[gpu]: the GPU tier as data (banklab.lab.gpu_tier): test.cu's traced and timed tests, "
                               "[gpu.transpose]'s generated transpose tests, whether it runs on the emulator"),
}
POINTS = {
    "gates": Key("patterns", True, "the tests the untouched stub already passes (names or shell patterns): worth "
                                   "nothing by themselves, and the groups that require them earn nothing while one fails"),
    "tests": Key("points", False, "tests with points of their own: points.tests.\"Suite.Test\" = N"),
}
SELFTEST = {
    "generic_cheats": Key("bool", False, "true: the course's cheats that fit any lab (APPLIES: all) run on this lab"),
}
PROBE = {
    "constants": Key("idents", True, "the constants the probe reports (w.value), each a constexpr of kernel.cu's "
                                     "namespace"),
}
TABLE = {
    "name": Key("ident", True, "the access function; the probe defines table_<name>"),
    "dims": Key("dims", True, "the box the probe tabulates it over: C++ expressions of the constants"),
}
INSTRUCTION = {
    "name": Key("ident", True, "the instruction; the probe defines access_<name>"),
    "kernel": Key("ident", True, "the kernel it is in"),
    "op": Key("str", True, "banklab's op (ld st ldsm stsm cpasync atom: the model's)"),
    "width": Key("int", True, "bytes a lane accesses: one the op takes"),
    "dims": Key("dims", True, "one warp instruction per index of this box (C++ expressions of the constants)"),
    "what": Key("str", True, "the instruction in words (site, messages)"),
    "index": Key("idents", False, "a name for each index of dims, in order (for label and only)"),
    "label": Key("str", False, "one warp instruction in messages: {expr} of the indices and constants, "
                               "{expr: A|B} a word picked by its value"),
    "at_minimum": Key("at_minimum", False, "TEST(LabNNLayout, <test>)s: every warp instruction valid and at the "
                                           "model's minimum"),
    "timing": Key("at_minimum", False, "{ test, only, nth } (or a list of them): LabNNOnGpu.<test>, one warp "
                                       "instruction replayed on the GPU against the conflict-free reference (the "
                                       "timing target)"),
}
# One "at the model's minimum" test of an instruction: TEST(LabNNLayout, <test>), every warp
# instruction of the table (or those whose indices `only` fixes) valid and at the model's minimum,
# failing with `hint` (or with the hint of the at_minimum test `hint_of`, above); `asked` names the
# questions whose answers its message must not state (issue 44: no answer before the student's work).
AT_MINIMUM = {
    "test": Key("ident", True, "the test's name in LabNNLayout"),
    "hint": Key("str", False, "what to try when it fails (never the answer)"),
    "hint_of": Key("str", False, "an at_minimum test above whose hint fits this one too"),
    "only": Key("table", False, "{ index = value }: only the warp instructions at these indices"),
    "asked": Key("strs", False, "the predictions that ask about this instruction's access (the stub's, or "
                                "the same once conflict-free): its failure message leaves its wavefronts and "
                                "minimum to them, and draws no command of the access"),
}
# One instruction's timing test (banklab.lab.gpu_tier): TEST(LabNNOnGpu, <test>), warp instruction
# `nth` (from 0, in the order of the indices) of those `only` selects, replayed on the GPU beside a
# conflict-free reference of the same op and width (grader::gpu::MeetsTimingTarget).
TIMING = {
    "test": Key("ident", True, "the test's name in LabNNOnGpu"),
    "only": Key("table", False, "{ index = value }: only the warp instructions at these indices"),
    "nth": Key("int", False, "which of them, from 0 in the order of the indices (default 0)"),
}
# [gpu]: the GPU tier's facts the judge cannot read from a test's name (banklab.lab.gpu_tier).
GPU = {
    "traced": Key("idents", False, "test.cu's LabNNOnGpu tests that run under the shared-memory tracer (their own "
                                   "process: the tracer slows every kernel of it)"),
    "timed": Key("idents", False, "test.cu's LabNNOnGpu tests that time kernels (skipped on the emulator, which "
                                  "runs kernels but does not time them)"),
    "transpose": Key("table", False, "[gpu.transpose]: the tiled transpose's tests, generated "
                                     "(grader/include/grader/tiled_transpose.cuh)"),
    "emulated": Key("bool", False, "true: the lab's GPU tests run on the emulator where there is no GPU "
                                   "(docs/dev/EMULATOR.md), as the course's CI shows (judge.EmulatedGpuTierNN: "
                                   "the cases marked EMULATED: ci in solutions/NN_name/cases)"),
}
# [gpu.transpose]: a lab whose kernel is a tiled float transpose launched by transpose(out, in, width,
# height): its correctness tests (roles correct and traced), its whole-kernel timing (timing), its
# bandwidth beside a tiled copy (timing, perf) and, with traced_hint, its traced test, all generated.
TRANSPOSE = {
    "kernel": Key("ident", True, "the [[kernels]] entry of the transpose (its launcher: [[launches]] transpose)"),
    "tile_rows": Key("ident", False, "the [variants] parameter that gives the tile's rows (default: 32 rows)"),
    "traced_hint": Key("ident", False, "an at_minimum test whose hint the generated traced test "
                                       "TracedSharedAccessesAreConflictFree gives (none: test.cu writes the traced test)"),
}
# A kernel the GPU tier finds in the student's compiled code: its parameters as kernel.cu declares
# them give its symbol (Itanium mangling, banklab.lab.description.mangle()).
KERNEL = {
    "name": Key("ident", True, "the kernel's name in kernel.cu's namespace"),
    "params": Key("str", True, "its parameters as kernel.cu declares them"),
}
LAUNCH = {
    "launcher": Key("ident", True, "the launcher; the probe defines launch_<launcher>"),
    "kernel": Key("ident", True, "the kernel whose parameters the capture records"),
    "sizes": Key("sizes", True, "the calls, each a list of integers (transpose_256x96: [256, 96])"),
    "roles": Key("strs", False, "one per size: correct, traced, timing, perf (read by the GPU tests)"),
}
QUESTION = {
    "name": Key("ident", True, "the predict:: constant of kernel.cu"),
    "test": Key("ident", True, "LabNNPredictions.<test> (consecutive questions may share one)"),
    "asks": Key("str", True, "wavefronts, value, excess_wavefronts or smallest"),
    "what": Key("str", False, "the access in words ({...} an expression of x)"),
    "hint": Key("str", True, "the \"Think:\" line"),
    "x": Key("str", False, "an earlier question whose answer is x"),
    "x_range": Key("ints", False, "[first, last, step] of the variable x"),
    "yours": Key("str", False, "smallest: why the student's x is invalid"),
    "yours_works": Key("str", False, "smallest: the student's x is conflict-free but not the smallest"),
    "range": Key("ints", False, "value: [lowest, highest] a prediction may take, or [lowest, highest, step]: "
                                "the constraint the question implies (a 16-byte chunk's offset: step 16)"),
    "range_what": Key("str", False, "value: what the number is"),
    "tma_swizzle": Key("str", False, "the TMA swizzle (bytes) the access goes through"),
}
# A question's answer (solutions/NN_name/answers.toml, a table named by the question).
ANSWER = {
    "access": Key("str", False, "\"OP WIDTH EXPRESSION\": each lane's byte offset, in the lane-expression language"),
    "mask": Key("str", False, "the active lanes, \"0x0000ffff\""),
    "value": Key("str", False, "an integer expression (it may read the student's own tables)"),
}
#: What each kind of question needs (besides name, test, asks, hint) and may have: in the
#: description, and in its answer.
ASKS = ("wavefronts", "value", "excess_wavefronts", "smallest")
NEEDS = {"wavefronts": ({"what"}, {"x", "x_range", "tma_swizzle"}),
         "value": ({"range", "range_what"}, set()),
         "excess_wavefronts": (set(), set()),
         "smallest": ({"what", "x_range", "yours", "yours_works"}, set())}
ANSWER_NEEDS = {"wavefronts": ({"access"}, {"mask"}),
                "value": ({"value"}, set()),
                "excess_wavefronts": ({"access"}, {"mask"}),
                "smallest": ({"access"}, {"mask"})}
#: The roles a launch's size may have.
ROLES = ("correct", "traced", "timing", "perf")
#: Keys a description had once: the message says what to do instead.
GONE = {k: "is not a key of a description any more: the lab's number and folder are its folder's name "
           "(labs/NN_name/); delete the line" for k in ("lab", "folder")}

#: Which key of the top level holds which section: (its name in messages, its keys, an array of
#: tables or one table). A table's entries are named "[[tables]] #2 (chunk_offset)" by NAMED_BY.
SECTIONS = {
    "points": ("[points]", POINTS, "table"),
    "selftest": ("[selftest]", SELFTEST, "table"),
    "probe": ("[probe]", PROBE, "table"),
    "tables": ("[[tables]]", TABLE, "array"),
    "instructions": ("[[instructions]]", INSTRUCTION, "array"),
    "kernels": ("[[kernels]]", KERNEL, "array"),
    "launches": ("[[launches]]", LAUNCH, "array"),
    "questions": ("[[questions]]", QUESTION, "array"),
    "gpu": ("[gpu]", GPU, "table"),
}
#: The key that names an entry of an array of tables in messages.
NAMED_BY = {"tables": None, "instructions": "name", "kernels": "name", "launches": "launcher", "questions": "name"}


def check_keys(where, table, schema):
    """Table `table` (named `where` in messages) against the keys of section `schema`: no unknown
    key, every required one, each of its type (C++ identifiers where the type says so)."""
    if not isinstance(table, dict):
        raise DescriptionError(f"{where}: expected a table")
    for k in table:
        if k not in schema:
            raise DescriptionError(f"{where}: unknown key {k!r} (known: {', '.join(schema)})")
    for k, key in schema.items():
        if k not in table:
            if key.required:
                raise DescriptionError(f"{where}: missing key {k!r}")
            continue
        v = table[k]
        ok, words = TYPES[key.type]
        if not ok(v):
            raise DescriptionError(f"{where}: key {k!r} must be {words}")
        if key.type in IDENT_TYPES:
            for s in ([v] if isinstance(v, str) else v):
                identifier(where, k, s)


def identifier(where, key, v):
    if not IDENT.match(v):
        raise DescriptionError(f"{where}: key {key!r} = {v!r} is not a C++ identifier")


def entry_name(section, n, table):
    """How messages name entry n (from 1) of an array of tables: "[[questions]] #3 (kRowRead)"."""
    label = SECTIONS[section][0]
    by = NAMED_BY[section]
    if by is None:
        return f"{label} #{n}"
    name = table.get(by, "?") if isinstance(table, dict) else "?"
    return f"{label} #{n} ({name})"


def check_shape(d):
    """Description `d` (parsed) against the schema: the top level, then every section and entry,
    then each instruction's at_minimum and timing tests and [gpu.transpose]. Raises DescriptionError naming the section and key."""
    for k, why in GONE.items():
        if k in d:
            raise DescriptionError(f"key {k!r} {why}")
    check_keys("top level", d, TOP)
    for section, (label, schema, kind) in SECTIONS.items():
        if section not in d:
            continue
        if kind == "table":
            check_keys(label, d[section], schema)
            continue
        for n, t in enumerate(d[section], 1):
            w = entry_name(section, n, t)
            if section == "questions" and isinstance(t, dict):
                for k in ANSWER:
                    if k in t:
                        raise DescriptionError(f"{w}: key {k!r} is the question's answer: it goes in "
                                               f"solutions/<lab>/answers.toml, under [{t.get('name', '?')}], "
                                               "never in the description students get")
            check_keys(w, t, schema)
    for n, t in enumerate(d["instructions"], 1):
        for k, am in enumerate(at_minimum_tests(t), 1):
            check_keys(f"{entry_name('instructions', n, t)} at_minimum #{k}", am, AT_MINIMUM)
        for k, tm in enumerate(timing_tests(t), 1):
            check_keys(f"{entry_name('instructions', n, t)} timing #{k}", tm, TIMING)
    if "transpose" in d.get("gpu", {}):
        check_keys("[gpu.transpose]", d["gpu"]["transpose"], TRANSPOSE)


def at_minimum_tests(t):
    """An instruction's at_minimum tests as a list (the key holds one table or a list of them)."""
    a = t.get("at_minimum", [])
    return [a] if isinstance(a, dict) else a


def timing_tests(t):
    """An instruction's timing tests as a list (the key holds one table or a list of them)."""
    a = t.get("timing", []) if isinstance(t, dict) else []
    return [a] if isinstance(a, dict) else [x for x in a if isinstance(x, dict)] if isinstance(a, list) else []
