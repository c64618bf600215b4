"""The one rule for text a student chose (issue 45): compiler and probe output, the judge's messages
that quote the student's file, archive member names, folder and file names. Such text reaches the
instructor's terminal, the CSV files, the feedback (Markdown, HTML), JUnit XML and the platforms'
JSON only through this module:

- cut(): a message is bounded (MESSAGE_LIMIT bytes of UTF-8) BEFORE any pattern runs over it, its
  start and its end kept (where the judge puts the command to run) and the cut said
  ("... [cut: N more bytes] ..."): the rule's cut (clean_text.toml), which the judge's clean_text()
  applies too, byte for byte;
- visible(): every character of the rule's (grader/judge/clean_text.toml, the judge's cleaner's too:
  controls, C0, DEL, C1: ESC, so every CSI/OSC sequence, CR, BEL, ...; format characters:
  bidirectional overrides and isolates, zero-width spaces, the BOM; line and paragraph separators)
  and lone surrogates (a non-UTF-8 byte of a file name) are shown as
  visible escapes (`\\x1b`, `\\r`, `\\u202e`, `\\xff`); newlines are kept where the text is a
  multi-line message, a CR before a newline dropped (a file saved on Windows). Ordinary text
  (any letters, "Zoë", a compiler's multi-line message) is unchanged, and cleaning twice is
  cleaning once;
- message(), name(), line(): those two together, for a message, a name, one line of a terminal;
- md_text(), md_code(): Markdown with no raw HTML, no link and no code fence the student chose;
- tree(): every string of a JSON document cleaned;
- guard_stream(): a terminal stream every write to which is cleaned (grade-class, grade-platform).

Linear in the text's length, no regular expression. Standard library only."""

from __future__ import annotations

from banklab.grading import cleantext_rule

#: The rule, grader/judge/clean_text.toml, which the judge's cleaner (grader/judge/clean_text.cpp) is
#: generated from too: which characters are escaped, what a message keeps, the cut sizes.
RULE = cleantext_rule.read()
#: A message from the student's side (a judge's message quoting the compiler or the probe) is cut
#: to this many bytes of UTF-8, the cut said: a report's size per student is bounded by it.
MESSAGE_LIMIT = RULE.message_bytes
#: A name (a folder's, a file's, an archive member's) is cut to this many bytes.
NAME_LIMIT = RULE.name_bytes
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(c: str) -> str:
    """The rule's escape of `c` (clean_text.toml): \\n \\r \\t by name; below U+0080 \\xNN; up to
    U+FFFF \\uNNNN; above \\UNNNNNNNN; os.fsdecode's stand-in for a byte that is not UTF-8 \\xNN."""
    o = ord(c)
    if c in _NAMED:
        return _NAMED[c]
    if 0xDC80 <= o <= 0xDCFF:             # os.fsdecode's stand-in for a byte that is not UTF-8
        return f"\\x{o - 0xDC00:02x}"
    if o < 0x80:
        return f"\\x{o:02x}"
    return f"\\u{o:04x}" if o <= 0xFFFF else f"\\U{o:08x}"


class _Table(dict):
    """str.translate's table, filled as characters are met: each maps to itself or to its escape."""

    def __init__(self, multiline: bool):
        super().__init__()
        self.multiline = multiline

    def __missing__(self, o: int):
        c = chr(o)
        hidden = 0xD800 <= o <= 0xDFFF or RULE.is_escaped(o, self.multiline)   # a lone surrogate: no text
        self[o] = v = _escape(c) if hidden else c     # (None would delete it)
        return v


_MULTI = _Table(True)         # a multi-line message: what the rule keeps (newlines, tabs) kept
_SINGLE = _Table(False)       # a name, a terminal line, a table cell: nothing kept


def visible(text: str, multiline: bool = True) -> str:
    """`text` with every control, format and separator character shown as a visible escape;
    `multiline`: newlines (and tabs) kept, a CR right before a newline dropped."""
    if not isinstance(text, str):
        text = str(text)
    if text.isascii() and text.isprintable():
        return text                               # the common case: nothing to do
    if multiline and RULE.drop_cr_before_newline and "\r\n" in text:
        text = text.replace("\r\n", "\n")
    return text.translate(_MULTI if multiline else _SINGLE)


def cut(text: str, limit: int = MESSAGE_LIMIT, multiline: bool = True) -> str:
    """`text` bounded to `limit` bytes of UTF-8 (the marker included) by the rule's cut
    (clean_text.toml: its start, cut_head_percent of the room the marker leaves, and its end kept,
    a character either cut splits left out, the marker between them; on one line, `multiline`
    False, the marker has no newline); shorter text is returned as it is."""
    if not isinstance(text, str):
        text = str(text)
    if len(text) <= limit // 4:                   # at most 4 bytes a character: surely short
        return text
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) <= limit:
        return text
    room = max(limit - len(RULE.marker(len(raw), multiline).encode()), 0)
    head = room * RULE.cut_head_percent // 100
    tail = room - head
    kept_head = raw[:head].decode("utf-8", "ignore")          # a character split by the cut is left out
    kept_tail = raw[len(raw) - tail:].decode("utf-8", "ignore") if tail else ""
    n = len(raw) - len(kept_head.encode("utf-8", "surrogatepass")) - len(kept_tail.encode("utf-8", "surrogatepass"))
    return kept_head + RULE.marker(n, multiline) + kept_tail


def message(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """A multi-line message from the student's side, made visible and bounded (in that order, so
    that cleaning twice is cleaning once)."""
    return cut(visible(text, multiline=True), limit)


def name(text: str, limit: int = NAME_LIMIT) -> str:
    """A name the student chose (a folder, a file, an archive member): one line, visible, bounded."""
    return cut(visible(text, multiline=False), limit, multiline=False)


def line(text: str) -> str:
    """One line printed on a terminal: nothing in it can move the cursor, erase, retitle or
    write the clipboard, nor start a line of its own."""
    return visible(text, multiline=False)


# --------------------------------------------------------------------------- Markdown

#: Characters that make Markdown (CommonMark, GitHub's) run HTML, make a link or an image, open code,
#: or a table cell: escaped with a backslash (every ASCII punctuation character may be).
_MD_SPECIAL = frozenset("\\`<>[]|!@")


def md_text(text: str) -> str:
    """Text a student chose, inside a Markdown line (a heading, a paragraph, a quote, a table
    cell): one line, visible, with no raw HTML, no link or image, no code span and no autolink
    (`https://`, `www.`, an address with @) of the student's. Renders as the text itself."""
    s = visible(text, multiline=False)
    out = []
    low = s.lower()
    for i, c in enumerate(s):
        if c in _MD_SPECIAL:
            out.append("\\" + c)
        elif c == ":" and s.startswith("//", i + 1):          # scheme://: no autolink
            out.append("\\:")
        elif c == "." and i >= 3 and low[i - 3:i] == "www":   # www.: no autolink
            out.append("\\.")
        else:
            out.append(c)
    return "".join(out)


def md_code(text: str, info: str = "text") -> list[str]:
    """A fenced code block of `text` (lines to join with newlines): its fence is longer than any run
    of backticks in it, so that nothing in the text can close it and write Markdown of its own."""
    s = visible(text, multiline=True)
    longest = run = 0
    for c in s:
        run = run + 1 if c == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{info}", s, fence]


# --------------------------------------------------------------------------- JSON, terminals

def tree(data):
    """A JSON document with every string in it (keys and values) made visible, newlines kept."""
    if isinstance(data, str):
        return visible(data)
    if isinstance(data, dict):
        return {tree(k) if isinstance(k, str) else k: tree(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [tree(v) for v in data]
    return data


class _Guarded:
    """A text stream whose writes are made visible (newlines kept) before they reach the terminal."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, s: str) -> int:
        self._stream.write(visible(s, multiline=True))
        return len(s)

    def __getattr__(self, attr):
        return getattr(self._stream, attr)


def guard_stream(stream):
    """`stream` (sys.stdout, sys.stderr) wrapped so that whatever is printed to it shows a student's
    control characters as escapes: the last line of defence behind each call site's own cleaning."""
    return stream if isinstance(stream, _Guarded) else _Guarded(stream)
