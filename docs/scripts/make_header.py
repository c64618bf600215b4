#!/usr/bin/env python3
"""Write the HTML header of the site: Doxygen's own default header (from the doxygen that builds
the site, so it always matches its version) plus the doxygen-awesome-css extensions: dark-mode
toggle, copy button on code blocks, paragraph links and the interactive table of contents.

  make_header.py --doxygen EXE --out header.html
"""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

EXTENSIONS = """<script type="text/javascript" src="$relpath^doxygen-awesome-darkmode-toggle.js"></script>
<script type="text/javascript" src="$relpath^doxygen-awesome-fragment-copy-button.js"></script>
<script type="text/javascript" src="$relpath^doxygen-awesome-paragraph-link.js"></script>
<script type="text/javascript" src="$relpath^doxygen-awesome-interactive-toc.js"></script>
<script type="text/javascript">
  DoxygenAwesomeDarkModeToggle.init()
  DoxygenAwesomeFragmentCopyButton.init()
  DoxygenAwesomeParagraphLink.init()
  DoxygenAwesomeInteractiveToc.init()
  // Enter in the sidebar's search box searches the whole course text (Pagefind), not only names.
  document.addEventListener("keydown", function (e) {
    var f = e.target;
    if (e.key !== "Enter" || !f || f.id !== "MSearchField" || !f.value.trim()) return;
    e.preventDefault();
    e.stopPropagation();
    window.location.href = "$relpath^search_course.html?q=" + encodeURIComponent(f.value.trim());
  }, true);
</script>
"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--doxygen", required=True)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        h, f, s = (Path(d) / n for n in ("header.html", "footer.html", "style.css"))
        r = subprocess.run([a.doxygen, "-w", "html", str(h), str(f), str(s)],
                           capture_output=True, text=True, cwd=d)
        if r.returncode != 0 or not h.exists():
            print(f"make_header: `{a.doxygen} -w html` failed:\n{r.stdout}{r.stderr}", file=sys.stderr)
            return 1
        text = h.read_text(encoding="utf-8")
    if "</head>" not in text:
        print("make_header: Doxygen's default header has no </head>", file=sys.stderr)
        return 1
    text = text.replace("</head>", EXTENSIONS + "</head>", 1)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    if not a.out.exists() or a.out.read_text(encoding="utf-8") != text:
        a.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
