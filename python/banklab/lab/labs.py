"""What a lab is, and which lab a name or a path belongs to: the one Python home of both rules.

A lab is a folder labs/NN_name/ holding its stub kernel.cu and, in its judge/ folder (the judge's
files: the description lab.toml, probe.cu, test.cu; docs/dev/LAB_CONTRACT.md gives the format), its
description; its number and name are the folder's. The student release moves judge/ out of the
student's folder, to grader/labs/NN_name/ (the course's make-release): judge_dir() is the one rule. Its solution, answers
and selftest cases are in solutions/NN_name/. Labs are found by walking labs/ for descriptions:
CMake asks this module (`python3 python/banklab_run.py -m banklab.lab.labs cmake`), and so does every other
place that lists labs or reads a lab number from a string (standard library only: it runs in the
student release, on grading platforms and in the docs build).

  find_labs(root)        {"05": Lab(...)} in lab order
  lab_number(text)       "05" from "05", "lab05", "Lab05Layout.X", "05_swizzle", ".../05_swizzle/kernel.cu"
  lab_of_path(path)      the Lab a path belongs to (labs/05_swizzle/..., solutions/05_swizzle/cases/...)
  load_description(p)    the parsed description, checked by the one validator (banklab.lab.description.check:
                         the keys of banklab.lab.schema, then what they say)
"""

from __future__ import annotations

import copy
import dataclasses
import re
import tomllib
from pathlib import Path

from banklab.lab import description as banklab_description
from banklab.lab.schema import DescriptionError  # noqa: F401  (labs.DescriptionError, as before)

#: The name of a lab folder: two digits, an underscore, lower-case words.
FOLDER_RE = re.compile(r"^(\d\d)_([a-z0-9_]+)$")
#: A lab number at the start of one path component or name: "05", "05_swizzle", "lab05",
#: "lab05_test.cu", "Lab05Layout.X", "Lab05OnGpu" (never three digits: "050" is no lab).
_NUMBER_RE = re.compile(r"^(?:lab)?(\d\d)(?!\d)", re.I)
#: The banklab command as every lab preset builds it (configure preset dev, target banklab), from
#: the repository's root: what a handout's commands name (the judge's messages print the same
#: file by its full path), so that each runs as printed in a release.
BANKLAB_CLI = "build/dev/tools/banklab"
#: A lab's description, in its judge folder (the file that makes the folder a lab).
DESCRIPTION = "lab.toml"
#: The judge's files of a lab (lab.toml, probe.cu, test.cu) in the course repository: labs/NN_name/judge/.
JUDGE = "judge"
#: ... and in the student release, out of the student's folder: grader/labs/NN_name/.
RELEASE_JUDGE = "grader/labs"


def judge_dir(root: Path, folder: str) -> Path:
    """Where lab `folder`'s judge files are: labs/<folder>/judge/ (the course repository), else
    grader/labs/<folder>/ (the student release). The one rule; CMake's banklab_judge_dir() and
    banklab.lab.gen's folder_of() follow it."""
    course = Path(root) / "labs" / folder / JUDGE
    return course if course.is_dir() else Path(root) / RELEASE_JUDGE / folder


def folder_of(judge_file: str | Path) -> str:
    """The lab folder a judge file belongs to: "05_swizzle" for labs/05_swizzle/judge/lab.toml and
    for grader/labs/05_swizzle/judge/lab.toml."""
    d = Path(judge_file).resolve().parent
    return d.parent.name if d.name == JUDGE else d.name
#: The answers to a lab's questions, in solutions/NN_name/.
ANSWERS = "answers.toml"


def repo_root() -> Path:
    return Path(__file__).resolve().parents[3]


def lab_number(text: str | Path) -> str | None:
    """The two-digit lab number a name or path speaks of, or None.

    Paths are read from their last component backwards, so ".../05_swizzle/kernel.cu" and
    "solutions/05_swizzle/cases/bad/x.patch" are lab 05, and so are "lab05", "Lab05Layout.X" and
    "labs/05_swizzle/judge/test.cu". Only a component that STARTS with the number (optionally after "lab",
    any case) counts: "junit-lab05.xml" and "kernel.cu" are None."""
    parts = re.split(r"[\\/]", str(text))
    for comp in reversed(parts):
        m = _NUMBER_RE.match(comp)
        if m:
            return m.group(1)
    return None


@dataclasses.dataclass(frozen=True)
class Lab:
    """One lab: its number, its folder name, its parsed description and the paths of its files."""
    number: str            # "05"
    folder: str            # "05_swizzle"
    description: dict = dataclasses.field(repr=False)
    root: Path = dataclasses.field(repr=False)

    # -- the description's keys
    @property
    def title(self) -> str:
        return self.description["title"]

    @property
    def summary(self) -> str:
        return self.description["summary"]

    @property
    def namespace(self) -> str:
        return self.description["namespace"]

    @property
    def questions(self) -> list[dict]:
        return list(self.description.get("questions", []))

    @property
    def instructions(self) -> list[dict]:
        return list(self.description.get("instructions", []))

    @property
    def launches(self) -> list[dict]:
        return list(self.description.get("launches", []))

    @property
    def gates(self) -> list[str]:
        return list(self.description["points"]["gates"])

    @property
    def test_points(self) -> dict[str, float]:
        return dict(self.description["points"].get("tests", {}))

    @property
    def generic_cheats(self) -> bool:
        """Whether the course's lab-agnostic cheats (grader/selftest/cheats/, APPLIES: all) run on this lab."""
        return bool(self.description.get("selftest", {}).get("generic_cheats", False))

    @property
    def gpu_emulated(self) -> bool:
        """Whether the lab's GPU tests run on the emulator where there is no GPU ([gpu] emulated;
        docs/dev/EMULATOR.md): CTest's judge.EmulatedGpuTierNN holds it to that where solutions/ is."""
        return bool(self.description.get("gpu", {}).get("emulated", False))

    @property
    def label(self) -> str:
        """The CTest label and preset name: "lab05"."""
        return f"lab{self.number}"

    # -- its files
    @property
    def stub(self) -> Path:
        return self.root / "labs" / self.folder / "kernel.cu"

    @property
    def solution(self) -> Path:
        return self.root / "solutions" / self.folder / "kernel.cu"

    @property
    def handout(self) -> Path:
        return self.root / "labs" / self.folder / "README.md"

    @property
    def figures(self) -> Path:
        return self.root / "labs" / self.folder / "figures.txt"

    @property
    def solution_figures(self) -> Path:
        return self.root / "solutions" / self.folder / "figures.txt"

    @property
    def dir(self) -> Path:
        """labs/NN_name/: the student's folder."""
        return self.root / "labs" / self.folder

    @property
    def solution_dir(self) -> Path:
        """solutions/NN_name/: the solution, the answers and the cases (not in the student release)."""
        return self.root / "solutions" / self.folder

    @property
    def judge_dir(self) -> Path:
        """labs/NN_name/judge/ (grader/labs/NN_name/ in the student release): the judge's files."""
        return judge_dir(self.root, self.folder)

    @property
    def probe(self) -> Path:
        return self.judge_dir / "probe.cu"

    @property
    def test(self) -> Path:
        return self.judge_dir / "test.cu"

    @property
    def description_path(self) -> Path:
        return self.judge_dir / DESCRIPTION

    @property
    def answers_path(self) -> Path:
        """solutions/NN_name/answers.toml: every question's answer (absent in the student release)."""
        return self.solution_dir / ANSWERS

    def answers(self) -> dict[str, dict] | None:
        """solutions/NN_name/answers.toml, parsed: {question name: {"access" | "mask" | "value": ...}};
        None where the file does not exist (the student release). DescriptionError when it does
        not parse. (The judge's generator, banklab.lab.gen, checks each answer against its question.)"""
        if not self.answers_path.is_file():
            return None
        return {k: dict(v) for k, v in read_answers(self.answers_path).items() if isinstance(v, dict)}

    def tests(self) -> list:
        """Every test of the lab, in CTest's order: the one list (banklab.lab.lab_tests.LabTest: suite,
        name, tier, labels, kind). CMake, labs-check and the generator ask it."""
        from banklab.lab import lab_tests
        return lab_tests.tests(self)

    def cases(self, kind: str) -> list[Path]:
        """The lab's selftest cases of one kind ("bad", "alternatives", "cheats"), sorted:
        solutions/NN_name/cases/<kind>/*.patch (diffs against the solution), and for "cheats" the
        *.cu cheats of the stub too (grader/selftest/materialize.py reads both)."""
        folder = self.solution_dir / "cases" / kind
        return sorted([*folder.glob("*.patch"), *(folder.glob("*.cu") if kind == "cheats" else [])])


def description_path(root: Path, folder: str) -> Path:
    """labs/<folder>/judge/lab.toml (grader/labs/<folder>/judge/lab.toml in the student release)."""
    return judge_dir(root, folder) / DESCRIPTION


def validate_description(data: dict, path: Path) -> list[str]:
    """What is wrong with description `data` (read from `path`): [] or its first problem, naming the
    file and the key (banklab.lab.description.check, the one validator, on a copy of `data`)."""
    try:
        banklab_description.check(copy.deepcopy(data))
    except DescriptionError as e:
        return [f"{path}: {e}"]
    return []


def read_answers(path: Path | str) -> dict:
    """The one reader of an answers file (solutions/NN_name/answers.toml), parsed as written (the
    generator checks every key against the description; Lab.answers() keeps the question tables);
    DescriptionError when it cannot be read or is not valid TOML."""
    try:
        return tomllib.loads(Path(path).read_text())
    except OSError as e:
        raise DescriptionError(f"{path}: {e}") from e
    except tomllib.TOMLDecodeError as e:
        raise DescriptionError(f"{path}: not valid TOML: {e}") from None


#: Descriptions parsed and checked in this process, by their text: the lab list is asked many times
#: (grade-class, labs-check, the docs build), and a text once checked is not parsed or checked again.
_CHECKED: dict[str, dict] = {}


def load_description(path: Path) -> dict:
    """The parsed description at `path` (a copy of its own); DescriptionError when it does not
    parse or is invalid."""
    try:
        text = Path(path).read_text()
        data = _CHECKED.get(text)
        if data is None:
            data = tomllib.loads(text)
            problems = validate_description(data, Path(path))
            if problems:
                raise DescriptionError("; ".join(problems))
            _CHECKED[text] = data
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise DescriptionError(f"{path}: {e}") from e
    return copy.deepcopy(data)


def survey(root: Path) -> tuple[dict[str, Lab], list[str]]:
    """The labs of `root` and, apart, what keeps a folder or a description from being a lab
    (one line each, naming the file and what to change). find_labs() is its first half."""
    labs, problems, _ = _survey(root)
    return labs, problems


def _survey(root: Path) -> tuple[dict[str, Lab], list[str], list[str]]:
    """survey(), and apart the descriptions that do not parse or are invalid."""
    root = Path(root)
    labs: dict[str, Lab] = {}
    problems: list[str] = []
    broken: list[str] = []
    if (root / "labs").is_dir():
        for d in sorted((root / "labs").iterdir()):
            if not d.is_dir():
                continue
            desc = description_path(root, d.name)
            m = FOLDER_RE.match(d.name)
            rel = desc.relative_to(root).as_posix()
            if not desc.is_file():
                if m and (d / "kernel.cu").is_file():
                    problems.append(f"labs/{d.name}/: no description {rel} "
                                    "(copy another lab's and edit it: docs/dev/LAB_CONTRACT.md)")
                continue
            if not m:
                problems.append(f"{rel}: the folder's name must be NN_name (two digits, an underscore, "
                                "lower-case words): rename labs/{d.name}/")
                continue
            n = m.group(1)
            if n in labs:
                problems.append(f"{rel}: lab {n} is already labs/{labs[n].folder}/: give one of them another number")
                continue
            try:
                data = load_description(desc)
            except DescriptionError as e:
                problems.append(f"{rel}: {e}".replace(f"{rel}: {desc}: ", f"{rel}: ").replace(str(desc), rel))
                broken.append(problems[-1])
                continue
            if not (d / "kernel.cu").is_file():
                problems.append(f"{rel}: labs/{d.name}/kernel.cu (the stub) does not exist")
                continue
            labs[n] = Lab(n, d.name, data, root)
    return dict(sorted(labs.items())), problems, broken


def find_labs(root: Path | None = None) -> dict[str, Lab]:
    """The labs of the course at `root`, in order: {"05": Lab("05", "05_swizzle", ...)}.

    A broken description (a TOML error or a missing key) raises DescriptionError: a lab must not
    silently vanish from grading. A folder without a description, or a description naming no
    folder, is simply not a lab (the course's labs-check reports both)."""
    labs, _, broken = _survey(root or repo_root())
    if broken:
        raise DescriptionError("\n".join(broken))
    return labs


def lab_folders(root: Path | None = None) -> dict[str, str]:
    """find_labs() as {"05": "05_swizzle"}."""
    return {n: lab.folder for n, lab in find_labs(root).items()}


def lab_of_path(path: str | Path, root: Path | None = None) -> Lab | None:
    """The lab a path or name belongs to (labs/05_swizzle/kernel.cu, solutions/05_swizzle/,
    labs/05_swizzle/judge/test.cu, solutions/05_swizzle/cases/bad/x.patch, Lab05Layout.X), or None."""
    n = lab_number(path)
    return find_labs(root).get(n) if n else None


def _main(argv: list[str]) -> int:
    """`banklab.lab.labs cmake [ROOT]`: the labs as a CMake list, "NN;NN_name;..." in lab order (a
    broken description: its problem on stderr, exit 1). `banklab.lab.labs list [ROOT]`: "NN NN_name" lines.
    `banklab.lab.labs generic-cheat-labs [ROOT]`: the labs whose description has selftest.generic_cheats = true.
    `banklab.lab.labs emulated-labs [ROOT]`: the labs whose description has [gpu] emulated = true.
    `banklab.lab.labs judge-dirs [ROOT]`: "NN;DIR;..." (each lab's judge_dir(), absolute).
    `banklab.lab.labs tests [ROOT]`: every lab's tests, "NN;Suite.Name;tier;labels;kind;..." (Lab.tests())."""
    import sys
    if len(argv) < 1 or argv[0] not in ("cmake", "list", "generic-cheat-labs", "emulated-labs", "judge-dirs", "tests"):
        print(_main.__doc__, file=sys.stderr)
        return 2
    root = Path(argv[1]) if len(argv) > 1 else repo_root()
    try:
        labs = find_labs(root)
    except DescriptionError as e:
        print(e, file=sys.stderr)
        return 1
    if argv[0] == "generic-cheat-labs":
        print(";".join(n for n, lab in labs.items() if lab.generic_cheats), end="")
    elif argv[0] == "emulated-labs":
        print(";".join(n for n, lab in labs.items() if lab.gpu_emulated), end="")
    elif argv[0] == "judge-dirs":
        print(";".join(f"{n};{lab.judge_dir.resolve().as_posix()}" for n, lab in labs.items()), end="")
    elif argv[0] == "tests":
        from banklab.lab import lab_tests
        print(lab_tests.cmake_list(labs), end="")
    elif argv[0] == "cmake":
        print(";".join(f"{n};{lab.folder}" for n, lab in labs.items()), end="")
    else:
        for n, lab in labs.items():
            print(n, lab.folder)
    return 0


if __name__ == "__main__":
    import sys
    sys.exit(_main(sys.argv[1:]))
