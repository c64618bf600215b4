"""The judge's cleaner of a student's text (grader/judge/clean_text.cpp) and Python's
(banklab.grading.cleantext) apply one rule, grader/judge/clean_text.toml: on every hostile text below
and on random ones, both make the same text of it, as a multi-line message and as one line; a few
are also checked against what the rule says by hand (so that the two cannot agree on a wrong text).

  python3 python/banklab_run.py grader/tests/test_clean_text_agrees.py --driver build/.../clean_text_driver
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import unittest

from banklab.grading import cleantext as ct

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


def python_clean(raw: bytes, multiline: bool) -> str:
    text = raw.decode("utf-8", "surrogateescape")   # as os.fsdecode gives a name, or a process's output
    return ct.visible(text, multiline=multiline)


def judge_clean(texts: list[tuple[bytes, bool]]) -> list[str]:
    stdin = "".join(("M " if m else "S ") + raw.hex() + "\n" for raw, m in texts)
    r = subprocess.run([DRIVER], input=stdin, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError(f"{DRIVER} failed ({r.returncode}): {r.stderr}")
    return [bytes.fromhex(h).decode("utf-8") for h in r.stdout.splitlines()]


class BothCleanersAgree(unittest.TestCase):
    def check(self, texts: list[tuple[str, bytes, bool]]):
        judged = judge_clean([(raw, m) for _, raw, m in texts])
        self.assertEqual(len(judged), len(texts))
        for (what, raw, m), cpp in zip(texts, judged):
            with self.subTest(what=what, multiline=m):
                self.assertEqual(cpp, python_clean(raw, m), f"{raw!r}")

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
        self.assertTrue(cpp.startswith("x" * ct.MESSAGE_LIMIT + "\n[... 10 more bytes"), cpp[-80:])


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    a, rest = ap.parse_known_args()
    DRIVER = os.path.abspath(a.driver)
    unittest.main(argv=[sys.argv[0], *rest])
