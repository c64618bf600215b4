"""Shared pieces of the course-site build: the figure list, the labs, and Markdown rewriting.

Standard library only. Used by the page generators in docs/scripts/ and by the tests in
docs/tests/ so that both read the figure list and find the labs the same way.
"""
from __future__ import annotations

import os
import posixpath
import re
import sys
from pathlib import Path

from banklab.lab import labs as banklab_labs  # noqa: E402,F401  (what a lab is: python/banklab/lab/labs.py)
# The site's sources (the labs, the figure lists) and the questions' accesses: below this module.
from banklab.docs.sources import (  # noqa: F401  (site.Figure, site.find_labs, ... as before)
    FIGURE_NAME_RE, Figure, Lab, SiteError, figure_lists, find_labs, read_all_figures, read_figures)
from banklab.docs.lab_work import graded_figure_lab  # noqa: F401

# The pages of docs/perf/ the course site shows its students, in order (the workbook's kernels on a
# GPU, the tracer against Nsight Compute). The other docs/perf/*.md are the developers' measurement
# notes (confinement costs, first use, the GPU tier's integrity, the tracer on cuBLAS): read in the
# repository, never in the site's navigation. docs/scripts/prepare_pages.py makes the pages of
# these; docs/tests/sitecheck.py (pages) checks that the navigation holds no other.
SITE_PERF_PAGES = ("gpu_perf.md", "trace_vs_ncu.md")

FIGURE_MARKER_RE = re.compile(r"<!--\s*figure:\s*([A-Za-z0-9_]+)\s*-->")
# <!-- explore: ld 4 (lane*32+3)*4 [| mask] -->: a link that opens the access in the bank explorer
EXPLORE_MARKER_RE = re.compile(r"<!--\s*explore:\s*(ld|st)\s+(\d+)\s+(.+?)(?:\s*\|\s*([0-9A-Fa-fx]+))?\s*-->")


def explore_link(m: re.Match) -> str:
    import html as _html
    import urllib.parse as _up
    op, width, expr, mask = m.group(1), m.group(2), m.group(3).replace(" ", ""), m.group(4)
    q = {"op": op, "width": width, "expr": expr}
    if mask:
        q["mask"] = mask
    href = "explorer.html?" + _up.urlencode(q, quote_via=_up.quote, safe="*()/")
    return (f'<a class="banklab-explore" href="{_html.escape(href)}">draw <code>{op} {width} '
            f'{_html.escape(expr)}</code> in the bank explorer</a>')


def figures_to_draw(figures: list[Figure], root: Path, solutions: bool,
                    enabled: bool = True) -> list[Figure]:
    """Figures the site shows: a lab's only when that lab exists; solution figures, and figures of
    no lab that draw an access a lab asks about (graded_figure_lab), only for the instructor
    build; none when the build has no `banklab` to draw them (enabled=False)."""
    if not enabled:
        return []
    labs = {lab.num for lab in find_labs(root)}
    out = []
    for f in figures:
        if f.is_solution and not solutions:
            continue
        if not solutions and graded_figure_lab(f, root):
            continue
        if f.lab is not None and f.lab not in labs:
            continue
        out.append(f)
    return out


# --------------------------------------------------------------------------------------------
# Markdown rewriting.
# --------------------------------------------------------------------------------------------
def figure_markup(fig: Figure) -> str:
    # No caption: the title is drawn in the figure itself (banklab explain --title).
    return f"\\image html {fig.name}.svg"


def split_code(text: str):
    """Yield (is_code, chunk) over a Markdown document: fenced blocks and inline code spans are
    code and must be left alone."""
    lines = text.splitlines(keepends=True)
    fence = None
    buf: list[str] = []
    for line in lines:
        stripped = line.lstrip()
        if fence is None:
            m = re.match(r"(```+|~~~+)", stripped)
            if m:
                if buf:
                    yield False, "".join(buf)
                    buf = []
                fence = m.group(1)
                yield True, line
                continue
            buf.append(line)
        else:
            yield True, line
            if stripped.startswith(fence):
                fence = None
    if buf:
        yield False, "".join(buf)


def map_prose(text: str, fn) -> str:
    """Apply fn to the prose of a Markdown document, never to code blocks or `inline code`."""
    out = []
    for is_code, chunk in split_code(text):
        if is_code:
            out.append(chunk)
            continue
        parts = re.split(r"(`+[^`]*`+)", chunk)
        out.append("".join(p if p.startswith("`") else fn(p) for p in parts))
    return "".join(out)


LINK_RE = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(([^()\s]+)(\s+\"[^\"]*\")?\)")
REFDEF_RE = re.compile(r"^(\s{0,3}\[[^\]]+\]:\s*)(\S+)(.*)$", re.M)


class LinkRewriter:
    """Turns the repository-relative links of a Markdown file into links that work on the site.

    - another lab's README (`../01_32way_conflict/README.md`) -> `@ref lab01_32way_conflict`
    - a documented header in common/include/banklab/ -> `@ref model.hpp`
    - the top-level README -> the front page; common/data/README.md -> the hardware page
    - solutions/ -> nothing at all unless the instructor build shows solutions
    - any other file of the repository -> the repository URL when one is configured, else plain
      text (a path in the repository is not a page of the site)
    - images named like a figure of docs/figures.txt -> that figure
    """

    def __init__(self, root: Path, src_file: Path, figures: dict[str, Figure], shown: set[str],
                 solutions: bool, repo_url: str = "", used: set[str] | None = None):
        self.root = root.resolve()
        self.src_dir = src_file.resolve().parent
        self.src_file = src_file
        self.figures = figures
        self.shown = shown
        self.solutions = solutions
        self.repo_url = repo_url.rstrip("/")
        self.used = used if used is not None else set()
        self.labs = {lab.folder: lab for lab in find_labs(root)}
        self.sols = {lab.folder: lab for lab in find_labs(root, "solutions")}

    def repo_path(self, target: str) -> str | None:
        """The target as a path relative to the repository root, or None if outside."""
        path = posixpath.normpath(posixpath.join(
            os.path.relpath(self.src_dir, self.root).replace(os.sep, "/"), target))
        if path.startswith(".."):
            return None
        return path

    def ref_for(self, target: str) -> str | None:
        """`@ref name` for a target that is a page of the site, '' for one to drop, None for
        one that is not a page (an ordinary repository file)."""
        target = target.split("#", 1)[0]
        path = self.repo_path(target)
        if path is None:
            return None
        if path in ("README.md", "."):
            return "@ref index"
        m = re.match(r"^labs/([^/]+)(/README\.md)?/?$", path)
        if m and m.group(1) in self.labs:
            return f"@ref {self.labs[m.group(1)].page_id}"
        m = re.match(r"^solutions/([^/]+)(/README\.md|/kernel\.cu)?/?$", path)
        if m:
            if self.solutions and m.group(1) in self.sols:
                return f"@ref sol{m.group(1)}"
            return ""
        if path.startswith("solutions/") or path == "solutions":
            return ""
        m = re.match(r"^common/include/banklab/([A-Za-z0-9_]+\.(?:hpp|cuh))$", path)
        if m:
            return f"@ref {m.group(1)}"
        if path == "common/data/README.md" or path.startswith("common/data/h200_"):
            return "@ref hardware"
        return None

    def link(self, m: re.Match) -> str:
        bang, text, target, title = m.group(1), m.group(2), m.group(3), m.group(4) or ""
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#") or target.startswith("@ref"):
            return m.group(0)  # external, in-page anchor, or already a Doxygen reference
        if bang:
            name = Path(target.split("#", 1)[0]).stem
            if name in self.figures:
                fig = self.figures[name]
                if name not in self.shown:
                    return ""  # a solution figure on the student site: leave it out
                self.used.add(name)
                return figure_markup(fig)
            raise SiteError(f"{self.src_file}: image {target!r} is not a figure of docs/figures.txt; "
                            "add it there (name|op width expression|mask|title) and refer to it "
                            f"as <!-- figure: NAME --> or ![...](NAME.svg)")
        ref = self.ref_for(target)
        if ref == "":
            return text
        if ref is not None:
            return f"[{text}]({ref})"
        path = self.repo_path(target)
        if self.repo_url and path is not None and (self.root / path.split("#", 1)[0]).exists():
            return f"[{text}]({self.repo_url}/blob/HEAD/{path}{title})"
        # A file of the repository: name it, do not link it.
        if path and Path(path).name not in text:
            return f"{text} (`{path}`)"
        return text

    def refdef(self, m: re.Match) -> str:
        target = m.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            return m.group(0)
        ref = self.ref_for(target)
        if ref:
            return f"{m.group(1)}{ref}{m.group(3)}"
        path = self.repo_path(target)
        if self.repo_url and path is not None and ref is None:
            return f"{m.group(1)}{self.repo_url}/blob/HEAD/{path}{m.group(3)}"
        return f"{m.group(1)}#{m.group(3)}" if ref == "" else m.group(0)

    def marker(self, m: re.Match) -> str:
        name = m.group(1)
        if name not in self.figures:
            raise SiteError(f"{self.src_file}: <!-- figure: {name} --> names no figure of docs/figures.txt")
        if name not in self.shown:
            return ""
        self.used.add(name)
        return figure_markup(self.figures[name])

    def __call__(self, prose: str) -> str:
        prose = EXPLORE_MARKER_RE.sub(explore_link, prose)
        prose = FIGURE_MARKER_RE.sub(self.marker, prose)
        prose = LINK_RE.sub(self.link, prose)
        return REFDEF_RE.sub(self.refdef, prose)


def rewrite(text: str, rewriter: LinkRewriter) -> str:
    return map_prose(text, rewriter)


def set_page_id(text: str, page_id: str, title: str | None = None) -> tuple[str, str]:
    """Make the first `# ` heading the page title with label page_id. Returns (text, title)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("# "):
            t = re.sub(r"\s*\{#[^}]*\}\s*$", "", line[2:]).strip()
            lines[i] = f"# {t} {{#{page_id}}}"
            return "\n".join(lines) + "\n", t
        if line.strip():
            break
    t = title or page_id
    return f"# {t} {{#{page_id}}}\n\n" + text, t


def write_if_changed(path: Path, text: str) -> None:
    """Write only when the content changes, so Doxygen does not rerun for nothing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    path.write_text(text, encoding="utf-8")


def fail(msg: str) -> "NoReturn":  # noqa: F821
    print(f"banklab docs: error: {msg}", file=sys.stderr)
    sys.exit(1)
