"""The judge's cleaner of a student's text (grader/judge/clean_text.cpp) and Python's
(banklab.grading.cleantext) apply one rule, grader/judge/clean_text.toml: on every hostile text below
and on random ones, both make the same text of it, byte for byte, as a multi-line message and as one
line, whole and cut at the rule's sizes and at small limits (long lines, a multi-byte character, an
escape or a CR LF where a cut falls); a few are also checked against what the rule says by hand (so
that the two cannot agree on a wrong text).

  python3 python/banklab_run.py grader/tests/test_clean_text_agrees.py --driver build/.../clean_text_driver
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tomllib
import unittest

from banklab import schemas
from banklab.grading import cleantext as ct
from banklab.grading import cleantext_rule

DRIVER = ""

# (what, the text's bytes); each is cleaned both ways.
HOSTILE = [
    ("plain ASCII", b"error: expected ';' after expression"),
    ("letters of other scripts", "Zoë Ångström 李雷 \u0645\u200c\u06cc emoji \U0001f600".encode()),
    ("a terminal title, a clipboard write, an erase", b"\x1b]2;graded\x07 \x1b]52;c;Y3VybA==\x07 \x1b[2K\r D"),
    ("a CR before a newline, and alone", b"line one\r\nline two\rover"),
    ("tabs and newlines", b"a\tb\nc\n\td"),
    ("C1 controls and DEL", b"\xc2\x9b2K \xc2\x85 \x7f"),
    ("bidirectional overrides and isolates", "\u202eevil\u202c \u2066x\u2069 \u200e\u200f \u061c".encode()),
    ("zero-width spaces, the soft hyphen, the BOM", "a\u200bb\u00adc\ufeffd\u2060e".encode()),
    ("line and paragraph separators", "a\u2028b\u2029c".encode()),
    ("tag characters (above U+FFFF)", "\U000e0001\U000e0041\U000e007f flag".encode()),
    ("bytes that are not UTF-8", b"\xff\xfe x \xc0\xaf \xed\xa0\x80 \xe2\x86"),
    ("a cut sequence at the end", b"arrow \xe2\x86"),
    ("NUL and backspaces", b"a\x00b\x08\x08c"),
    ("escapes already escaped", b"\\x1b \\u202e \\n"),
    ("joiners scripts need", "\u200c\u200d".encode()),
]

# (text, multi-line, what the rule makes of it): the rule by hand.
BY_HAND = [
    (b"\x1b[2K", True, "\\x1b[2K"),
    (b"a\r\nb", True, "a\nb"),
    (b"a\r\nb", False, "a\\r\\nb"),
    (b"a\tb", True, "a\tb"),
    (b"a\tb", False, "a\\tb"),
    ("\u202e".encode(), True, "\\u202e"),
    ("\xad\x9b".encode(), True, "\\u00ad\\u009b"),
    ("\U000e0001".encode(), True, "\\U000e0001"),
    (b"\xff", True, "\\xff"),
    ("\u200d".encode(), False, "\u200d"),
]


def python_clean(raw: bytes, multiline: bool, limit: int = ct.MESSAGE_LIMIT) -> str:
    """Python's cleaner: a multi-line message (message()) or a name (name()), cut at `limit`."""
    text = raw.decode("utf-8", "surrogateescape")   # as os.fsdecode gives a name, or a process's output
    return ct.message(text, limit) if multiline else ct.name(text, limit)


def judge_clean(texts: list[tuple[bytes, bool]], limit: int = ct.MESSAGE_LIMIT) -> list[str]:
    """The judge's cleaner (clean_text(raw, limit, multiline)) on each text, through the driver."""
    stdin = "".join(("M " if m else "S ") + f"{limit} " + raw.hex() + "\n" for raw, m in texts)
    r = subprocess.run([DRIVER], input=stdin, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError(f"{DRIVER} failed ({r.returncode}): {r.stderr}")
    return [bytes.fromhex(h).decode("utf-8") for h in r.stdout.splitlines()]


# (what, the text's bytes) of texts longer than a cut: each is cut at several limits, both ways.
LONG = [
    ("a long line", b"x" * 20000),
    ("a long line of two-byte letters", "é".encode() * 5000),
    ("four-byte characters", "\U0001f600".encode() * 3000),
    ("a long compile error, its command at the end", b"kernel.cu(12): error: " + b"y" * 9000 + b"\n  run: git checkout labs/05/kernel.cu\n"),
    ("escapes everywhere (each byte grows fourfold)", b"\x1b]52;c;Y3VybA==\x07\x1b[2K" * 600),
    ("bidi overrides and isolates, many", ("\u202eevil\u202c\u2066x\u2069" * 700).encode()),
    ("CR LF lines", b"line\r\n" * 3000),
    ("lone CRs and controls", b"a\rb\x00\x08\x7f\xc2\x9b" * 2000),
    ("bytes that are not UTF-8", b"\xff\xfe\xc0\xaf\xed\xa0\x80\xe2\x86" * 1500),
    ("tags above U+FFFF", ("\U000e0041" * 2000).encode()),
    ("a mix", "Zoë \x1b[31m李雷\u202e\r\n\t\U0001f600 \u200d".encode() * 800),
]


class BothCleanersAgree(unittest.TestCase):
    def check(self, texts: list[tuple[str, bytes, bool]], limit: int = ct.MESSAGE_LIMIT):
        judged = judge_clean([(raw, m) for _, raw, m in texts], limit)
        self.assertEqual(len(judged), len(texts))
        for (what, raw, m), cpp in zip(texts, judged):
            with self.subTest(what=what, multiline=m, limit=limit):
                self.assertEqual(cpp.encode(), python_clean(raw, m, limit).encode("utf-8", "surrogatepass"),
                                 f"{raw[:200]!r}")

    def test_every_hostile_text(self):
        self.check([(w, raw, m) for w, raw in HOSTILE for m in (True, False)])

    def test_random_texts(self):
        rng = random.Random(48)
        pieces = [b"a", b" ", b"\n", b"\r", b"\t", b"\x1b", b"\x00", b"\x7f", b"\xc2\x9b", "é".encode(),
                  "\u202e".encode(), "\u200b".encode(), "\u200d".encode(), "\U000e0020".encode(), b"\xff",
                  b"\xe2\x86", b"\xed\xa0\x80", "\U0001f600".encode(), b"\\"]
        texts = []
        for i in range(500):
            raw = b"".join(rng.choice(pieces) for _ in range(rng.randrange(1, 40)))
            texts.append((f"random {i}", raw, i % 2 == 0))
        self.check(texts)

    def test_what_the_rule_says_by_hand(self):
        judged = judge_clean([(raw, m) for raw, m, _ in BY_HAND])
        for (raw, m, want), cpp in zip(BY_HAND, judged):
            with self.subTest(raw=raw, multiline=m):
                self.assertEqual(python_clean(raw, m), want)
                self.assertEqual(cpp, want)

    def test_both_cut_at_the_rules_size(self):
        self.assertEqual(ct.MESSAGE_LIMIT, ct.RULE.message_bytes)
        [cpp] = judge_clean([(b"x" * (ct.MESSAGE_LIMIT + 10), True)])
        # the rule by hand: the marker's bytes (its count the whole text's), then 75 % of the room
        marker = len(f"\n... [cut: {ct.MESSAGE_LIMIT + 10} more bytes] ...\n")
        room = ct.MESSAGE_LIMIT - marker
        head, tail = room * 3 // 4, room - room * 3 // 4
        self.assertEqual(cpp, "x" * head + f"\n... [cut: {ct.MESSAGE_LIMIT + 10 - room} more bytes] ...\n" + "x" * tail)
        self.assertLessEqual(len(cpp.encode()), ct.MESSAGE_LIMIT)   # the marker sized for the whole count

    def test_long_texts_are_cut_alike(self):
        """Every long text, at the rule's two sizes and at limits where a cut falls inside a character,
        an escape, a CR LF or the marker itself (a limit below the marker's size keeps only it)."""
        texts = [(w, raw, m) for w, raw in LONG for m in (True, False)]
        for limit in (ct.MESSAGE_LIMIT, ct.NAME_LIMIT, 64, 97, 100, 101, 102, 103, 1000, 1001, 1002, 1003, 20):
            self.check(texts, limit)

    def test_random_long_texts_at_random_limits(self):
        rng = random.Random(4848)
        pieces = [b"a", b"\n", b"\r\n", b"\r", b"\t", b"\x1b]2;t\x07", b"\x00", "é".encode(), "李".encode(),
                  "\U0001f600".encode(), "\u202e".encode(), "\u2066".encode(), b"\xff", b"\xe2\x86", b"\\"]
        by_limit: dict[int, list] = {}
        for i in range(400):
            raw = b"".join(rng.choice(pieces) for _ in range(rng.randrange(20, 400)))
            by_limit.setdefault(rng.choice((40, 64, 77, 128, 255, 300, 513)), []).append((f"random {i}", raw, i % 2 == 0))
        for limit, texts in sorted(by_limit.items()):
            self.check(texts, limit)

    def test_the_rules_cut_keys_are_checked(self):
        """The cut's keys of clean_text.toml: a marker without its count or with a control in it, a
        share that is no percentage, are refused by name; another share is a rule of its own."""
        data = tomllib.loads((cleantext_rule.ROOT / cleantext_rule.DATA).read_text())
        for key, bad in (("cut_marker", "[cut]"), ("cut_marker", "\x1b[2K{n}"), ("cut_marker_one_line", "\n{n}\n"),
                         ("cut_head_percent", 101), ("cut_head_percent", True), ("cut_head_percent", None)):
            with self.subTest(key=key, bad=bad), self.assertRaisesRegex(schemas.SchemaError, key):
                cleantext_rule.parse(dict(data, **{key: bad}))
        half = cleantext_rule.parse(dict(data, cut_head_percent=50, cut_marker="<{n}>"))
        self.assertEqual((half.cut_head_percent, half.marker(7, True)), (50, "<7>"))

    def test_a_cut_text_is_bounded_and_cleaning_it_again_changes_nothing(self):
        for what, raw in LONG:
            for m in (True, False):
                [once] = judge_clean([(raw, m)], 300)
                with self.subTest(what=what, multiline=m):
                    self.assertLessEqual(len(once.encode()), 300)
                    self.assertIn("[cut: ", once)
                    self.assertEqual("\n" in once, m)   # one line stays one line
                    [twice] = judge_clean([(once.encode(), m)], 300)
                    self.assertEqual(twice, once)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    a, rest = ap.parse_known_args()
    DRIVER = os.path.abspath(a.driver)
    unittest.main(argv=[sys.argv[0], *rest])
