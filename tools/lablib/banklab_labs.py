"""What a lab is, and which lab a name or a path belongs to: the one Python home of both rules.

A lab is a folder labs/NN_name/ holding kernel.cu, together with its description
grader/labNN.toml whose `folder` is "NN_name" (docs/dev/LAB_CONTRACT.md gives the format). The
same rule is implemented once in CMake (banklab_find_labs in cmake/BanklabLab.cmake); the two are
compared by tools/labs-check. Every other Python place that lists labs or reads a lab number from a
string calls this module (standard library only: it runs in the student release, on grading
platforms and in the docs build).

  find_labs(root)        {"05": Lab(...)} in lab order
  lab_number(text)       "05" from "05", "lab05", "Lab05Layout.X", "05_swizzle", ".../05_swizzle/kernel.cu"
  lab_of_path(path)      the Lab a path belongs to (labs/05_swizzle/..., grader/lab05_test.cu, ...)
  load_description(p)    the parsed description, its keys above `# ---- judge ----` validated
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

#: The name of a lab folder: two digits, an underscore, lower-case words.
FOLDER_RE = re.compile(r"^(\d\d)_([a-z0-9_]+)$")
#: A lab number at the start of one path component or name: "05", "05_swizzle", "lab05",
#: "lab05_test.cu", "Lab05Layout.X", "Lab05OnGpu" (never three digits: "050" is no lab).
_NUMBER_RE = re.compile(r"^(?:lab)?(\d\d)(?!\d)", re.I)
#: The line of a description below which helper sections (the judge's) begin.
JUDGE_LINE = "# ---- judge ----"


class DescriptionError(ValueError):
    """A lab description that does not parse or lacks a required key."""


def repo_root() -> Path:
    return Path(__file__).resolve().parents[2]


def lab_number(text: str | Path) -> str | None:
    """The two-digit lab number a name or path speaks of, or None.

    Paths are read from their last component backwards, so ".../05_swizzle/kernel.cu" and
    "grader/selftest/bad/05_swizzle/x.patch" are lab 05, and so are "lab05", "Lab05Layout.X" and
    "grader/lab05_test.cu". Only a component that STARTS with the number (optionally after "lab",
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
    def probe(self) -> Path:
        return self.root / "grader" / f"lab{self.number}_probe.cu"

    @property
    def test(self) -> Path:
        return self.root / "grader" / f"lab{self.number}_test.cu"

    @property
    def description_path(self) -> Path:
        return description_path(self.root, self.number)


def description_path(root: Path, number: str) -> Path:
    return Path(root) / "grader" / f"lab{number}.toml"


def _str(d: dict, key: str, where: str, problems: list[str], pattern: str | None = None) -> None:
    v = d.get(key)
    if not isinstance(v, str) or not v.strip():
        problems.append(f"{where}: `{key}` must be a non-empty string")
    elif "\n" in v:
        problems.append(f"{where}: `{key}` must be one line")
    elif pattern and not re.fullmatch(pattern, v):
        problems.append(f"{where}: `{key}` = {v!r} does not match {pattern}")


def validate_description(data: dict, path: Path) -> list[str]:
    """What is wrong with the keys above the judge line (the judge's generator validates its own
    sections): lab, folder, title, summary, namespace, [points] gates and optional [points.tests]."""
    where = str(path)
    problems: list[str] = []
    _str(data, "lab", where, problems, r"\d\d")
    _str(data, "folder", where, problems, FOLDER_RE.pattern[1:-1])
    _str(data, "title", where, problems)
    _str(data, "summary", where, problems)
    _str(data, "namespace", where, problems, r"[A-Za-z_][A-Za-z0-9_]*")
    n = lab_number(path.name)
    if isinstance(data.get("lab"), str) and n and data["lab"] != n:
        problems.append(f"{where}: says lab = \"{data['lab']}\", its name says {n}")
    if isinstance(data.get("folder"), str) and isinstance(data.get("lab"), str) \
            and not data["folder"].startswith(data["lab"] + "_"):
        problems.append(f"{where}: folder = \"{data['folder']}\" does not start with lab \"{data['lab']}\"_")
    pts = data.get("points")
    if not isinstance(pts, dict):
        problems.append(f"{where}: no [points] table (its `gates`: the tests the untouched stub passes)")
    else:
        g = pts.get("gates")
        if not isinstance(g, list) or not all(isinstance(x, str) and x for x in g):
            problems.append(f"{where}: [points] gates must be a list of test names or shell patterns")
        t = pts.get("tests", {})
        if not isinstance(t, dict) or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                              and v >= 0 for v in t.values()):
            problems.append(f"{where}: [points.tests] must map test names to points >= 0")
        for k in pts:
            if k not in ("gates", "tests"):
                problems.append(f"{where}: [points] has an unknown key `{k}` (gates, tests)")
    return problems


def load_description(path: Path) -> dict:
    """The parsed description at `path`; DescriptionError when it does not parse or is invalid."""
    try:
        data = tomllib.loads(Path(path).read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise DescriptionError(f"{path}: {e}") from e
    problems = validate_description(data, Path(path))
    if problems:
        raise DescriptionError("; ".join(problems))
    return data


def survey(root: Path) -> tuple[dict[str, Lab], list[str]]:
    """The labs of `root` and, apart, what keeps a folder or a description from being a lab
    (one line each, naming the file and what to change). find_labs() is its first half."""
    root = Path(root)
    labs: dict[str, Lab] = {}
    problems: list[str] = []
    folders = {}
    if (root / "labs").is_dir():
        for d in sorted((root / "labs").iterdir()):
            if d.is_dir() and FOLDER_RE.match(d.name) and (d / "kernel.cu").is_file():
                folders[d.name] = d
    described = set()
    for p in sorted((root / "grader").glob("lab[0-9][0-9].toml")):
        n = p.stem[3:]
        try:
            data = load_description(p)
        except DescriptionError as e:
            problems.append(f"grader/{p.name}: {e}".replace(f"grader/{p.name}: {p}: ", f"grader/{p.name}: "))
            described.add(f"{n}_?")
            continue
        folder = data["folder"]
        described.add(folder)
        if folder not in folders:
            problems.append(f"grader/{p.name}: folder = \"{folder}\" but labs/{folder}/kernel.cu does not exist "
                            "(rename the folder or fix `folder`)")
            continue
        labs[n] = Lab(n, folder, data, root)
    for name in folders:
        n = FOLDER_RE.match(name).group(1)
        if name not in described and f"{n}_?" not in described:
            problems.append(f"labs/{name}/: no description grader/lab{n}.toml with folder = \"{name}\" "
                            "(copy another lab's and edit it: docs/dev/LAB_CONTRACT.md)")
    return dict(sorted(labs.items())), problems


def find_labs(root: Path | None = None) -> dict[str, Lab]:
    """The labs of the course at `root`, in order: {"05": Lab("05", "05_swizzle", ...)}.

    A broken description (a TOML error or a missing key) raises DescriptionError: a lab must not
    silently vanish from grading. A folder without a description, or a description naming no
    folder, is simply not a lab (tools/labs-check reports both)."""
    labs, problems = survey(root or repo_root())
    broken = [p for p in problems if not p.startswith("labs/") and "does not exist" not in p]
    if broken:
        raise DescriptionError("\n".join(broken))
    return labs


def lab_folders(root: Path | None = None) -> dict[str, str]:
    """find_labs() as {"05": "05_swizzle"}."""
    return {n: lab.folder for n, lab in find_labs(root).items()}


def lab_of_path(path: str | Path, root: Path | None = None) -> Lab | None:
    """The lab a path or name belongs to (labs/05_swizzle/kernel.cu, solutions/05_swizzle/,
    grader/lab05_test.cu, grader/selftest/bad/05_swizzle/x.patch, Lab05Layout.X), or None."""
    n = lab_number(path)
    return find_labs(root).get(n) if n else None
