#!/usr/bin/env python3
"""Generate the page "The banklab command": run every example with the built `banklab`.

  gen_cli_page.py --banklab EXE --source REPO --template docs/pages/banklab.md --out DIR/banklab.md

Each `<!-- run: banklab ARGS -->` line of the template becomes a code block with the command (as
build/dev/tools/banklab ARGS: it runs as printed from the repository's root) and
what it printed (run in the repository root, without colours). The build fails if a command
fails. `<!-- run-optional: ... -->` shows the command's output when it succeeds and a note when
this build's banklab lacks it (e.g. `calibrate`, which needs its own folder in tools/).
Without --banklab (no banklab target in this build) the commands are shown without output.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from banklab.docs import site  # noqa: E402
from banklab.lab import labs as banklab_labs  # noqa: E402  (BANKLAB_CLI: the command as a release builds it)

SHOW_RE = re.compile(r"^<!--\s*show:\s*(\S+)\s*-->\s*$", re.M)  # a file of the repository, shown as is
RUN_RE = re.compile(r"^<!--\s*(run|run-optional):\s*(.+?)\s*-->\s*$", re.M)
ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
MAX_LINES = 80


def block(cmd: str, out: str) -> str:
    lines = ANSI_RE.sub("", out).rstrip("\n").splitlines()
    if len(lines) > MAX_LINES:
        lines = lines[:MAX_LINES - 10] + [f"... ({len(lines) - MAX_LINES + 5} lines left out) ..."] + lines[-5:]
    body = "\n".join(lines)
    return f"```\n$ {cmd}\n{body}\n```"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--banklab", default="")
    ap.add_argument("--source", type=Path, required=True)
    ap.add_argument("--template", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    env = dict(os.environ, NO_COLOR="1", TERM="dumb", COLUMNS="100")

    def run(m: re.Match) -> str:
        kind, cmd = m.group(1), m.group(2)
        argv = shlex.split(cmd)
        if argv[0] != "banklab":
            site.fail(f"{a.template}: '{cmd}' does not start with banklab")
        cmd = banklab_labs.BANKLAB_CLI + cmd[len("banklab"):]   # shown as it runs, from the repository's root
        if not a.banklab:
            return (f"```\n$ {cmd}\n```\n\n*(This build of the site had no `banklab` to run: "
                    "the output is missing.)*")
        r = subprocess.run([a.banklab, *argv[1:]], capture_output=True, text=True, env=env,
                           cwd=a.source, timeout=120)
        if r.returncode != 0:
            if kind == "run-optional":
                return (f"```\n$ {cmd}\n```\n\n*(Not in this build of `banklab`: "
                        f"{(r.stderr or r.stdout).strip().splitlines()[0] if (r.stderr or r.stdout).strip() else 'exit ' + str(r.returncode)})*")
            site.fail(f"{a.template}: `{cmd}` exited {r.returncode}:\n{r.stdout}{r.stderr}")
        return block(cmd, r.stdout + r.stderr)

    def show(m: re.Match) -> str:
        f = a.source / m.group(1)
        if not f.is_file():
            site.fail(f"{a.template}: <!-- show: {m.group(1)} --> names no file of the repository")
        return f"```\n$ cat {m.group(1)}\n" + f.read_text(encoding="utf-8").rstrip("\n") + "\n```"

    text = RUN_RE.sub(run, a.template.read_text(encoding="utf-8"))
    text = SHOW_RE.sub(show, text)
    site.write_if_changed(a.out, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
