"""What the course site is built from: the labs (as banklab.lab.labs finds them, with their folder
under labs/ or solutions/) and the figure lists (docs/figures.txt, labs|solutions/NN_name/figures.txt).
Standard library only. banklab.docs.site and banklab.docs.lab_work both read them from here.
"""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from banklab.lab import labs as banklab_labs  # noqa: E402  (what a lab is: python/banklab/lab/labs.py)
from banklab.lab.schema import DescriptionError  # noqa: E402

FIGURE_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_]*$")


class SiteError(Exception):
    """A problem in the project's files that makes the site wrong: reported, build stops."""


# --------------------------------------------------------------------------------------------
# Figures: docs/figures.txt, one per line `name|op width expression|mask|title`.
# --------------------------------------------------------------------------------------------
@dataclasses.dataclass
class Figure:
    name: str          # unique; the SVG is <name>.svg (Doxygen copies images flat)
    spec: str          # `ld 4 lane*33*4`, or a full access line `ld 4 ffffffff o0 ... o31`
    mask: str          # hexadecimal active-lane mask, or empty for all lanes
    title: str         # drawn in the figure and used as its caption
    line: int          # line in its list
    source: Path | None = None   # the list it comes from
    solution: bool = False       # from solutions/NN_name/figures.txt
    lab_num: str | None = None   # from labs|solutions/NN_name/figures.txt

    @property
    def lab(self) -> str | None:
        """Two-digit lab number: the folder of its list, or a name `labNN_...`; else None."""
        if self.lab_num:
            return self.lab_num
        return banklab_labs.lab_number(self.name) if self.name.startswith("lab") else None

    @property
    def is_solution(self) -> bool:
        """Solution figures (from solutions/NN_name/figures.txt, or a `_solution` part in the
        name) are drawn only for the instructor build."""
        return self.solution or "_solution" in self.name

    def banklab_args(self) -> list[str]:
        """Arguments for `banklab` that draw this figure (without --svg)."""
        tokens = self.spec.split()
        if len(tokens) == 35:  # op width mask and 32 offsets: a full access line
            return ["explain", "--line", " ".join(tokens)]
        if len(tokens) < 3:
            raise SiteError(f"{self.source}:{self.line}: '{self.spec}' is not 'op width expression'")
        args = ["explain", tokens[0], tokens[1], " ".join(tokens[2:])]
        if self.mask:
            args += ["--mask", self.mask]
        return args


def read_figures(path: Path, solution: bool = False, lab_num: str | None = None,
                 seen: dict[str, str] | None = None) -> list[Figure]:
    """One figure list. A name may end in `.svg` (the file drawn is always <name>.svg)."""
    figures: list[Figure] = []
    seen = {} if seen is None else seen
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(("#", "@")):  # @explore: lab_work.py
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 4:
            raise SiteError(f"{path}:{n}: expected 'name|op width expression|mask|title', got {raw!r}")
        name, spec, mask, title = parts
        if name.endswith(".svg"):
            name = name[:-4]
        if not FIGURE_NAME_RE.match(name):
            raise SiteError(f"{path}:{n}: figure name {name!r}: use lower case, digits and '_'")
        if name in seen:
            raise SiteError(f"{path}:{n}: figure name {name!r} is already used at {seen[name]} "
                            "(Doxygen copies images into one folder: names must be unique)")
        if mask and not re.fullmatch(r"(0x)?[0-9A-Fa-f]{1,8}", mask):
            raise SiteError(f"{path}:{n}: mask {mask!r} is not hexadecimal")
        if not title:
            raise SiteError(f"{path}:{n}: figure {name!r} needs a title")
        if "\"" in title:
            raise SiteError(f"{path}:{n}: figure {name!r}: no double quotes in titles")
        seen[name] = f"{path}:{n}"
        figures.append(Figure(name, spec, mask, title, n, path, solution, lab_num))
    return figures


def figure_lists(root: Path) -> list[tuple[Path, bool, str | None]]:
    """Every figure list: docs/figures.txt, then labs/NN_*/figures.txt and
    solutions/NN_*/figures.txt (a lab's own figures, next to its handout)."""
    lists = [(root / "docs" / "figures.txt", False, None)]
    for kind in ("labs", "solutions"):
        for lab in find_labs(root, kind):
            f = lab.path / "figures.txt"
            if f.is_file():
                lists.append((f, kind == "solutions", lab.num))
    return lists


def read_all_figures(root: Path) -> list[Figure]:
    seen: dict[str, str] = {}
    out: list[Figure] = []
    for path, solution, num in figure_lists(root):
        if path.is_file():
            out += read_figures(path, solution, num, seen)
    return out


# --------------------------------------------------------------------------------------------
# Labs: what python/banklab/lab/labs.py finds (a folder labs/NN_name/ with its description
# labs/NN_name/judge/lab.toml), in number order.
# --------------------------------------------------------------------------------------------
@dataclasses.dataclass
class Lab:
    num: str      # "01"
    folder: str   # "01_32way_conflict"
    path: Path    # <source>/labs/01_32way_conflict (or solutions/...)
    info: banklab_labs.Lab = dataclasses.field(repr=False)   # its description and files

    @property
    def page_id(self) -> str:
        return f"lab{self.folder}"

    @property
    def readme(self) -> Path:
        return self.path / "README.md"

    def title(self) -> str:
        """"Lab 05: Swizzle": the description's title, as the lab list and the navigation show it."""
        return f"Lab {self.num}: {self.info.title}"

    @property
    def summary(self) -> str:
        """One line: what the lab teaches (the description's summary, also the README's lab table)."""
        return self.info.summary

    def heading(self) -> str:
        """The handout's first `# ` heading (without a `{#id}`): the lab page's own title."""
        if self.readme.is_file():
            for line in self.readme.read_text(encoding="utf-8").splitlines():
                if line.startswith("# "):
                    return re.sub(r"\s*\{#[^}]*\}\s*$", "", line[2:]).strip()
        return self.title()


def find_labs(root: Path, kind: str = "labs") -> list[Lab]:
    """The labs of <root> (banklab.lab.labs.find_labs), with their folder under labs/ (or, for
    kind="solutions", those whose solutions/NN_name/ exists), sorted by number. A description
    that does not parse stops the build (SiteError)."""
    try:
        labs = banklab_labs.find_labs(root)
    except DescriptionError as e:
        raise SiteError(str(e)) from e
    return [Lab(n, lab.folder, root / kind / lab.folder, lab) for n, lab in labs.items()
            if (root / kind / lab.folder).is_dir()]
