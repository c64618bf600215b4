#!/usr/bin/env python3
"""Build-time step after Doxygen: figures that work on every screen, and marks for Pagefind.

  postprocess_html.py --html DIR

- Bank diagrams: Doxygen embeds an SVG as <object ... style="pointer-events: none;"> and drops
  its alt text, so no hover label ever shows. Each becomes
  <div class="banklab-figure"><object ... role="img" aria-label="TITLE. DESCRIPTION"
  style="aspect-ratio: W / H">TITLE</object></div>: it receives the pointer (the <title> of every
  cell shows on hover), its accessible name is the figure's own <title> and <desc>, and the
  container scrolls sideways where the screen is narrower than the drawing's readable width
  (docs/theme/banklab.css).
- Full-text search: the page text (div.contents) is marked data-pagefind-body and the page
  title data-pagefind-meta="title", so Pagefind indexes the course text and not the navigation.
Idempotent: a page already processed is left as it is.
"""
from __future__ import annotations

import argparse
import html
import re
import sys
from pathlib import Path

OBJECT_RE = re.compile(r'<object type="image/svg\+xml" data="([^"]+\.svg)"(?: style="pointer-events: none;")?></object>')


def svg_info(path: Path) -> tuple[str, str, str]:
    """(aspect ratio 'W / H', title, desc) of a drawn figure."""
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    m = re.search(r'<svg[^>]*\bwidth="(\d+)"[^>]*\bheight="(\d+)"', text)
    ratio = f"{m.group(1)} / {m.group(2)}" if m else ""
    t = re.search(r"<title>(.*?)</title>", text, re.S)
    d = re.search(r"<desc>(.*?)</desc>", text, re.S)
    return (ratio, html.unescape(t.group(1)).strip() if t else path.stem,
            html.unescape(d.group(1)).strip() if d else "")


def process(page: Path, root: Path) -> bool:
    text = page.read_text(encoding="utf-8")
    orig = text

    def figure(m: re.Match) -> str:
        ratio, title, desc = svg_info(root / m.group(1))
        label = html.escape(f"{title}. {desc}" if desc else title, quote=True)
        style = f' style="aspect-ratio: {ratio}"' if ratio else ""
        return (f'<div class="banklab-figure"><object type="image/svg+xml" data="{m.group(1)}" '
                f'role="img" aria-label="{label}"{style}>{html.escape(title)}</object></div>')

    text = OBJECT_RE.sub(figure, text)
    if "data-pagefind-body" not in text:
        text = text.replace('<div class="contents">', '<div class="contents" data-pagefind-body>', 1)
        text = re.sub(r'<div class="title">', '<div class="title" data-pagefind-meta="title">', text, count=1)
    if text != orig:
        page.write_text(text, encoding="utf-8")
        return True
    return False


NO_NAME_MATCH = "No name matches. Press Enter to search the whole course text."


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--html", type=Path, required=True)
    ap.add_argument("--no-pagefind", action="store_true",
                    help="Pagefind is not installed: the search page loses its links to the index it would make "
                         "(its script then says why there is no search)")
    a = ap.parse_args()
    if not (a.html / "index.html").is_file():
        print(f"postprocess_html: {a.html}/index.html does not exist", file=sys.stderr)
        return 1
    n = sum(process(p, a.html) for p in sorted(a.html.glob("*.html")))
    # The sidebar's live results come from Doxygen's index of names only: for a word of the
    # course text ("padding") they said "No Matches" until Enter sent it to the course search.
    # Say what Enter does instead.
    for p in sorted((a.html / "search").glob("*.html")):
        text = p.read_text(encoding="utf-8")
        new = text.replace('id="NoMatches">No Matches<', f'id="NoMatches">{NO_NAME_MATCH}<')
        if new != text:
            p.write_text(new, encoding="utf-8")
    search = a.html / "search_course.html"
    if a.no_pagefind and search.is_file():
        text = search.read_text(encoding="utf-8")
        text = re.sub(r'<link href="pagefind/[^"]*"[^>]*>\s*', "", text)
        text = re.sub(r'<script src="pagefind/[^"]*"></script>\s*', "", text)
        search.write_text(text, encoding="utf-8")
    print(f"postprocess_html: {n} page(s) updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
