#!/usr/bin/env python3
"""The course site's tests (CTest label `docs`), one subcommand each:

  build         builds the `docs` target (Doxygen forced to run) and fails on any warning line
  pages         every labs/NN_name/ has its page, in order, with working links between labs;
                every figure the build should draw is in the HTML output and on a page
  links         every relative href/src of every HTML page points to a file that exists, and
                every #anchor to an id in it
  no_solutions  nothing of solutions/ (the lines that differ from the stub, solution figures)
                is on the site, unless the build is the instructor's (then it must be there)
  screenshots   headless Chromium renders the front page and a lab page: the screenshots are
                not blank and the page titles are right

Exit status 0 pass, 1 fail, 77 skip (a tool is missing: the reason is printed).
Standard library only.
"""
from __future__ import annotations

import argparse
import html
import html.parser
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import urllib.parse
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from banklab.docs import site as site  # noqa: E402

SKIP = 77
PROJECT_NAME = "banklab"


class Failures:
    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, msg: str) -> None:
        self.items.append(msg)
        print(f"FAIL: {msg}")

    def done(self, what: str) -> int:
        if self.items:
            print(f"\n{len(self.items)} problem(s) in {what}.")
            return 1
        print(f"OK: {what}")
        return 0


def skip(reason: str) -> int:
    print(f"SKIP: {reason}")
    return SKIP


def need_html(a) -> int | None:
    if a.missing:
        return skip(f"the course site cannot be built here: {a.missing}")
    if not (a.html / "index.html").is_file():
        print(f"FAIL: {a.html}/index.html does not exist: the docs build (test docs.build) did not "
              "produce the site")
        return 1
    return None


def html_files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.html"))


def page_title(text: str) -> str:
    m = re.search(r"<title>(.*?)</title>", text, re.S | re.I)
    return html.unescape(m.group(1)).strip() if m else ""


def lab_pages(a) -> list[site.Lab]:
    return site.find_labs(a.source)


# ---------------------------------------------------------------------------------------------
def cmd_build(a) -> int:
    if a.missing:
        return skip(f"the course site cannot be built here: {a.missing}")
    f = Failures()
    for target in a.prebuild:
        # What the site needs (banklab) is built first; its compiler output is not the site's.
        r = subprocess.run([a.cmake, "--build", str(a.build_dir), "--target", target],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(r.stdout[-6000:], r.stderr[-6000:])
            f.add(f"building {target}, which the site needs, failed")
            return f.done("the docs build")
    # Make Doxygen run even when the site is up to date, so its warnings are seen every time.
    stamp = a.html / "index.html"
    if stamp.exists():
        stamp.unlink()
    r = subprocess.run([a.cmake, "--build", str(a.build_dir), "--target", "docs"],
                       capture_output=True, text=True)
    out = r.stdout + r.stderr
    print(out[-20000:])
    if r.returncode != 0:
        f.add(f"`cmake --build {a.build_dir} --target docs` exited {r.returncode}")
    warnings = [line for line in out.splitlines() if re.search(r"warning\s*:", line, re.I)]
    for w in warnings:
        f.add(f"warning line in the docs build: {w}")
    if not stamp.is_file():
        f.add(f"{stamp} was not produced")
    return f.done("the docs build (no warning)")


# ---------------------------------------------------------------------------------------------
class LinkParser(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str, int]] = []  # (attr, value, line)
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if v is None:
                continue
            if k in ("id", "name") and (k == "id" or tag == "a"):
                self.ids.add(v)
            if (k == "href" and tag in ("a", "link", "area")) or (k == "src" and tag in ("img", "script", "iframe")) \
                    or (k == "data" and tag == "object"):
                self.links.append((k, v, self.getpos()[0]))


def parse_html(path: Path, cache: dict) -> LinkParser:
    if path not in cache:
        p = LinkParser()
        p.feed(path.read_text(encoding="utf-8", errors="replace"))
        cache[path] = p
    return cache[path]


def cmd_links(a) -> int:
    rc = need_html(a)
    if rc is not None:
        return rc
    f = Failures()
    cache: dict = {}
    checked = 0
    root = a.html.resolve()
    targets: list[tuple[Path, str, int, str]] = []
    for page in html_files(a.html):
        for attr, value, line in parse_html(page, cache).links:
            targets.append((page, value, line, attr))
    # The sidebar tree is JavaScript data: its links are links too.
    for js in sorted(a.html.glob("navtree*.js")) + sorted(a.html.glob("*.js")):
        if js.name in ("navtree.js", "jquery.js", "dynsections.js", "resize.js", "menu.js", "search.js") \
                or js.name.startswith("doxygen-awesome"):
            continue
        for m in re.finditer(r'"([A-Za-z0-9_.\-]+\.html(?:#[A-Za-z0-9_.\-]+)?)"', js.read_text(encoding="utf-8")):
            targets.append((js, m.group(1), 0, "navtree"))
    for src, value, line, attr in targets:
        value = value.strip()
        if not value or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", value) or value.startswith("//"):
            continue  # external (http:, mailto:, javascript:) — not this site's business
        url = urllib.parse.urlsplit(value)
        path = urllib.parse.unquote(url.path)
        target = (src.parent / path).resolve() if path else src.resolve()
        where = f"{src.relative_to(a.html)}:{line}" if line else str(src.relative_to(a.html))
        checked += 1
        try:
            target.relative_to(root)
        except ValueError:
            # Without -DBANKLAB_DOCS_REPO_URL a lab page links its kernel.cu in the source tree.
            src_root = a.source.resolve()
            if target.is_relative_to(src_root) and not target.is_relative_to(src_root / "build") \
                    and not target.relative_to(src_root).parts[0] == "solutions":
                if not target.is_file():
                    f.add(f"{where}: {attr}={value!r}: {target} does not exist in the source tree")
                continue
            f.add(f"{where}: {attr}={value!r} points outside the site")
            continue
        if not target.exists():
            f.add(f"{where}: {attr}={value!r}: {target.relative_to(root) if str(target).startswith(str(root)) else target} does not exist")
            continue
        if url.fragment and target.suffix == ".html":
            ids = parse_html(target, cache).ids
            frag = urllib.parse.unquote(url.fragment)
            # Doxygen's tree lists the values of an enum whose values have no comment (e.g.
            # banklab::Op) with anchors it never writes; the tree then opens the enum. Accept that
            # one case: a tree entry `<enum anchor>a<32 hex>` whose enum anchor exists.
            m = re.fullmatch(r"(a[0-9a-f]{32})a[0-9a-f]{32}", frag)
            if attr == "navtree" and m and m.group(1) in ids:
                continue
            if frag not in ids:
                f.add(f"{where}: {attr}={value!r}: no id {url.fragment!r} in {target.name}")
    print(f"{checked} internal links and images checked in {len(cache)} HTML files")
    return f.done("the site's internal links")


# ---------------------------------------------------------------------------------------------
def cmd_pages(a) -> int:
    rc = need_html(a)
    if rc is not None:
        return rc
    f = Failures()
    labs = lab_pages(a)
    index = (a.html / "index.html").read_text(encoding="utf-8")
    expect_title = "Shared-memory bank conflicts, lab by lab"
    if page_title(index) != f"{PROJECT_NAME}: {expect_title}":
        f.add(f"front page title is {page_title(index)!r}, expected '{PROJECT_NAME}: {expect_title}'")
    labs_index = a.html / "labs.html"
    labs_html = labs_index.read_text(encoding="utf-8") if labs_index.exists() else ""
    if not labs_html:
        f.add("labs.html (the list of labs) is missing")
    last_pos = -1
    for i, lab in enumerate(labs):
        page = a.html / f"{lab.page_id}.html"
        if not lab.readme.is_file():
            f.add(f"labs/{lab.folder}/ has no README.md, so the site has no page for lab {lab.num}")
            continue
        if not page.is_file():
            f.add(f"labs/{lab.folder}/ exists but the site has no page {page.name}")
            continue
        text = page.read_text(encoding="utf-8")
        want = f"{PROJECT_NAME}: {lab.heading()}"
        if page_title(text) != want:
            f.add(f"{page.name}: title {page_title(text)!r}, expected {want!r}")
        if f'href="{page.name}"' not in index:
            f.add(f"the front page does not link {page.name}")
        pos = labs_html.find(f'href="{page.name}"')
        if pos < 0:
            f.add(f"labs.html does not link {page.name}")
        elif pos < last_pos:
            f.add(f"labs.html lists {page.name} out of order")
        else:
            last_pos = pos
        if i + 1 < len(labs) and labs[i + 1].readme.is_file() \
                and f'href="{labs[i + 1].page_id}.html"' not in text:
            f.add(f"{page.name} does not link the next lab {labs[i + 1].page_id}.html")
        # Every link of the handout to another lab's README became a link to that lab's page.
        readme = lab.readme.read_text(encoding="utf-8")
        folders = {other.folder for other in labs}
        for m in re.finditer(r"\]\((?:\.\./|\.\./\.\./labs/)([^/)#]+)/(?:README\.md)?(?:#[^)]*)?\)", readme):
            other = m.group(1)
            if other in folders and (a.source / "labs" / other / "README.md").is_file() \
                    and f'href="lab{other}.html' not in text:
                f.add(f"{page.name}: the handout's link to ../{other}/README.md is not a link to lab{other}.html")
        if "README.md" in re.sub(r"<pre.*?</pre>|<code>.*?</code>", "", text, flags=re.S):
            leftovers = re.findall(r'href="[^"]*README\.md[^"]*"', text)
            if leftovers:
                f.add(f"{page.name}: links to README.md files left: {leftovers[:3]}")
    if not labs:
        print("note: no labs/NN_name/ folder in this checkout: no lab page to check")

    figures = site.figures_to_draw(site.read_all_figures(a.source), a.source, a.solutions)
    all_html = {p.name: p.read_text(encoding="utf-8") for p in html_files(a.html)}
    for fig in figures:
        svg = a.html / f"{fig.name}.svg"
        if not svg.is_file():
            f.add(f"figure {fig.name}.svg ({fig.source}:{fig.line}) is not in the HTML output")
            continue
        if "<svg" not in svg.read_text(encoding="utf-8", errors="replace")[:2000]:
            f.add(f"{svg.name} is not an SVG")
        shown_on = [n for n, t in all_html.items()
                    if f'src="{fig.name}.svg"' in t or f'data="{fig.name}.svg"' in t]
        if not shown_on:
            f.add(f"figure {fig.name}.svg is in the output but on no page")
        elif fig.lab is not None and not fig.is_solution:
            lab = next((l for l in labs if l.num == fig.lab), None)
            if lab and f"{lab.page_id}.html" not in shown_on:
                f.add(f"figure {fig.name}.svg belongs to lab {fig.lab} but is not on {lab.page_id}.html (it is on {shown_on})")
    print(f"{len(labs)} lab folders and {len(figures)} figures checked")
    navigation(a, f)
    for name in ("hardware.html", "banklab_cli.html", "reference.html"):
        if not (a.html / name).is_file():
            f.add(f"{name} is missing")
    return f.done("the lab pages and figures")


def navigation(a, f) -> None:
    """The sidebar a student reads (navtreedata.js): titles as text (no markup: a code span in a
    heading showed as a raw <tt> tag), and no developer page of docs/perf/ (site.SITE_PERF_PAGES
    are the site's)."""
    nav = a.html / "navtreedata.js"
    if not nav.is_file():
        f.add("navtreedata.js is missing: the site has no sidebar")
        return
    titles = re.findall(r'\[ "((?:[^"\\]|\\.)*)", "', nav.read_text(encoding="utf-8"))
    for t in titles:
        if re.search(r"<[A-Za-z/]|&lt;[A-Za-z/]", t):
            f.add(f"the sidebar shows markup in a title: {t!r} (a heading with a code span: write it as text)")
    for page in sorted((a.source / "docs" / "perf").glob("*.md")):
        if page.name in site.SITE_PERF_PAGES:
            continue
        title = re.sub(r"\s*\{#[^}]*\}\s*$", "", page.read_text(encoding="utf-8").partition("\n")[0][2:]).strip()
        plain = re.sub(r"`([^`]*)`", r"<tt>\1</tt>", title)
        if any(t in (title, plain) for t in titles):
            f.add(f"the sidebar lists docs/perf/{page.name}, a developer's page ({title!r}): the site's perf pages "
                  "are site.SITE_PERF_PAGES")
    print(f"{len(titles)} sidebar titles checked")


# ---------------------------------------------------------------------------------------------
def normalise(s: str) -> str:
    return " ".join(s.split())


def site_text(root: Path) -> str:
    """All text of the site: HTML with tags removed, plus the search index and other text files."""
    parts = []
    for p in sorted(root.rglob("*")):
        if not p.is_file() or p.suffix not in (".html", ".js", ".md", ".txt", ".svg", ".css"):
            continue
        t = p.read_text(encoding="utf-8", errors="replace")
        if p.suffix in (".html", ".svg"):
            t = re.sub(r"<[^>]+>", "", t)
        parts.append(html.unescape(t))
    return normalise("\n".join(parts))


def solution_markers(a) -> list[tuple[str, str]]:
    """(where, text) pairs that identify a solution: each line of solutions/NN/kernel.cu (and of its
    README.md) that is not in the stub, long enough to be unmistakable. Pure comments too: a
    solution's explanation is as much a give-away as its code."""
    out = []
    for sol in site.find_labs(a.source, "solutions"):
        for name, min_len in (("kernel.cu", 14), ("README.md", 30)):
            s_file = sol.path / name
            if not s_file.is_file():
                continue
            stub_file = a.source / "labs" / sol.folder / name
            stub = {normalise(x) for x in stub_file.read_text(encoding="utf-8").splitlines()} \
                if stub_file.is_file() else set()
            # Text the student has anyway is no give-away: the stub's own file (also re-wrapped)
            # and the documentation of the library's public headers (common/include).
            public = normalise(stub_file.read_text(encoding="utf-8")) if stub_file.is_file() else ""
            for h in sorted((a.source / "common" / "include").rglob("*.h*")):
                public += "\n" + normalise(re.sub(r"^\s*///?\s?", "", h.read_text(encoding="utf-8"), flags=re.M))
            for n, line in enumerate(s_file.read_text(encoding="utf-8").splitlines(), start=1):
                t = normalise(line)
                if len(t) < min_len or t in stub or t in public or re.fullmatch(r"[\W_]+", t) \
                        or t.startswith("```"):
                    continue
                if name == "README.md" and (t.startswith("#") or t.startswith("|")):
                    continue
                out.append((f"solutions/{sol.folder}/{name}:{n}", t))
    return out


def cmd_no_solutions(a) -> int:
    rc = need_html(a)
    if rc is not None:
        return rc
    f = Failures()
    markers = solution_markers(a)
    text = site_text(a.html)
    # The check must be able to see what it looks for: every marker is found in its own file.
    probe = normalise("\n".join(t for _, t in markers))
    assert all(t in probe for _, t in markers)
    found = [(w, t) for w, t in markers if t in text]
    sol_figs = [fig for fig in site.read_all_figures(a.source) if fig.is_solution]
    fig_files = [fig for fig in sol_figs if (a.html / f"{fig.name}.svg").exists()]
    kernels = [w for w, _ in markers if "kernel.cu" in w]
    print(f"{len(markers)} distinctive solution lines ({len(kernels)} from kernel.cu files) and "
          f"{len(sol_figs)} solution figures looked for")
    if a.solutions:
        # Instructor build: the solutions must be there (this also proves the search works).
        print(f"{len(found)} of them are on this (instructor) site")
        if markers and not found:
            f.add("instructor build (BANKLAB_DOCS_SOLUTIONS=ON), but no solution line is on the site")
        missing_figs = [fig.name for fig in sol_figs if fig.lab and (a.source / "labs").is_dir()
                        and fig not in fig_files and any(l.num == fig.lab for l in site.find_labs(a.source))]
        for n in missing_figs:
            f.add(f"instructor build: solution figure {n}.svg is missing")
        return f.done("the instructor site shows the solutions")
    for w, t in found:
        f.add(f"solution text on the site: {w}: {t!r}")
    for fig in fig_files:
        f.add(f"solution figure on the site: {fig.name}.svg ({fig.source}:{fig.line})")
    if not markers and not sol_figs:
        print("note: no solutions/ in this checkout: nothing to look for")
    return f.done("no solution on the student site")


# ---------------------------------------------------------------------------------------------
def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Decode an 8-bit RGB/RGBA PNG (what Chromium writes) into rows of pixels."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or color not in (2, 6) or interlace:
                raise ValueError(f"unsupported PNG: depth {depth}, colour type {color}, interlace {interlace}")
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - bpp] if x >= bpp else 0
            up = prev[x]
            ul = prev[x - bpp] if x >= bpp else 0
            if ftype == 1:
                line[x] = (line[x] + left) & 255
            elif ftype == 2:
                line[x] = (line[x] + up) & 255
            elif ftype == 3:
                line[x] = (line[x] + ((left + up) >> 1)) & 255
            elif ftype == 4:
                p = left + up - ul
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - ul)
                pred = left if pa <= pb and pa <= pc else (up if pb <= pc else ul)
                line[x] = (line[x] + pred) & 255
        rows.append([bytes(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return width, height, rows


def ink_share(png: Path) -> float:
    """Share of pixels that differ clearly from the most common colour (the background)."""
    w, h, rows = png_pixels(png.read_bytes())
    counts: dict[bytes, int] = {}
    for row in rows[::4]:
        for px in row[::4]:
            counts[px] = counts.get(px, 0) + 1
    bg = max(counts, key=counts.get)
    total = ink = 0
    for row in rows[::2]:
        for px in row[::2]:
            total += 1
            if sum(abs(px[i] - bg[i]) for i in range(3)) > 48:
                ink += 1
    return ink / total


def chromium(a, args: list[str], profile: str) -> subprocess.CompletedProcess:
    cmd = [a.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--hide-scrollbars", f"--user-data-dir={profile}", "--window-size=1280,1600",
           "--virtual-time-budget=5000", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def cmd_screenshots(a) -> int:
    rc = need_html(a)
    if rc is not None:
        return rc
    if not a.chromium or not shutil.which(a.chromium):
        return skip("chromium not found (apt-get install chromium): no screenshots")
    f = Failures()
    pages = [("front page", a.html / "index.html", "Shared-memory bank conflicts, lab by lab")]
    labs = [l for l in lab_pages(a) if (a.html / f"{l.page_id}.html").is_file()]
    if labs:
        lab = labs[min(1, len(labs) - 1)]
        pages.append((f"lab {lab.num}", a.html / f"{lab.page_id}.html", lab.heading()))
    else:
        print("note: no lab page in this build: the hardware page stands in for it")
        pages.append(("hardware page", a.html / "hardware.html", "What the hardware does"))
    a.shots.mkdir(parents=True, exist_ok=True)
    for what, page, title in pages:
        url = page.resolve().as_uri()
        png = a.shots / f"{page.stem}.png"
        if png.exists():
            png.unlink()
        with tempfile.TemporaryDirectory(prefix="banklab-chromium-") as profile:
            r = chromium(a, [f"--screenshot={png}", url], profile)
        if r.returncode != 0 or not png.is_file():
            f.add(f"{what}: chromium failed to take a screenshot (exit {r.returncode}): {r.stderr[-2000:]}")
            continue
        share = ink_share(png)
        print(f"{what}: {png} — {share * 100:.1f} % of the pixels are not background")
        if share < a.min_ink:
            f.add(f"{what}: the screenshot {png} is blank ({share * 100:.2f} % ink, need {a.min_ink * 100:.1f} %)")
        with tempfile.TemporaryDirectory(prefix="banklab-chromium-") as profile:
            r = chromium(a, ["--dump-dom", url], profile)
        got = page_title(r.stdout)
        want = f"{PROJECT_NAME}: {title}"
        if got != want:
            f.add(f"{what}: the page title in Chromium is {got!r}, expected {want!r}")
        # The sidebar tree is filled by JavaScript: in the rendered DOM it must hold the labs.
        if 'id="nav-tree"' not in r.stdout or "The labs" not in r.stdout:
            f.add(f"{what}: the sidebar tree (nav-tree with 'The labs') did not render")
    return f.done("screenshots of the site")


# ---------------------------------------------------------------------------------------------
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["build", "pages", "links", "no_solutions", "screenshots"])
    ap.add_argument("--source", type=Path, required=True)
    ap.add_argument("--html", type=Path, required=True)
    ap.add_argument("--solutions", default="0", help="1 for the instructor build")
    ap.add_argument("--missing", default="", help="why the site cannot be built here (then: skip)")
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("--build-dir", type=Path)
    ap.add_argument("--prebuild", action="append", default=[])
    ap.add_argument("--chromium", default="")
    ap.add_argument("--shots", type=Path, default=Path("screenshots"))
    ap.add_argument("--min-ink", type=float, default=0.03)
    a = ap.parse_args()
    a.source = a.source.resolve()
    a.solutions = a.solutions.upper() in ("1", "ON", "TRUE", "YES")
    return {"build": cmd_build, "pages": cmd_pages, "links": cmd_links,
            "no_solutions": cmd_no_solutions, "screenshots": cmd_screenshots}[a.command](a)


if __name__ == "__main__":
    sys.exit(main())
