"""Tests of python/banklab/lab/variant_numbers.py (issue 44 item 4): a handout that states variant
0's value of a stub constant the variants change is flagged; naming the constant alone, and every
real lab's handout, pass.

  python3 python/banklab_run.py -m unittest python/tests/test_variant_numbers.py -v
"""

import contextlib
import shutil
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
from banklab.lab import labs as banklab_labs   # noqa: E402
from banklab.lab import variant_numbers   # noqa: E402


@contextlib.contextmanager
def lab05_copy():
    """A temporary root holding a copy of lab 05 (its labs/ and solutions/ folders), to plant a
    defect in: (the root, lab 05 found there)."""
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        for side in ("labs", "solutions"):
            shutil.copytree(ROOT / side / "05_swizzle", root / side / "05_swizzle")
        yield root, banklab_labs.find_labs(root)["05"]


class VariantNumbers(unittest.TestCase):
    def test_every_lab_passes(self):
        for n, lab in banklab_labs.find_labs(ROOT).items():
            with self.subTest(lab=n):
                self.assertEqual(variant_numbers.check(lab), [])

    def test_constants_are_evaluated_from_each_variants_stub(self):
        lab = banklab_labs.find_labs(ROOT)["05"]
        varying = variant_numbers.varying_constants(lab)
        self.assertIn("kChunkTileBytes", varying)
        v0, k, vk = varying["kChunkTileBytes"]
        self.assertNotEqual(v0, vk)
        self.assertEqual(variant_numbers.stub_constants("constexpr int kA = 4;\nconstexpr int kB = kA * 8 + (1 << 2);\n"
                                           "constexpr int kC = sizeof(float);\n"), {"kA": 4, "kB": 36})

    def test_variant_zeros_number_in_the_handout_is_flagged(self):
        with lab05_copy() as (root, lab):
            v0 = variant_numbers.varying_constants(lab)["kChunkTileBytes"][0]
            readme = lab.handout
            text = readme.read_text()
            for planted in (f"The tile stays `kChunkTileBytes` {v0}.", f"inside the {v0}-byte tile,",
                            f"kChunkTileBytes = {v0} here"):
                with self.subTest(planted=planted):
                    readme.write_text(text + "\n" + planted + "\n")
                    got = variant_numbers.check(lab)
                    self.assertEqual(len(got), 1, got)
                    self.assertIn("variant 0's number", got[0])
            for fine in ("The tile stays `kChunkTileBytes` bytes.", f"a {v0 + 16}-byte tile", "kChunkTileBytes; 4096 ways"):
                with self.subTest(fine=fine):
                    readme.write_text(text + "\n" + fine + "\n")
                    self.assertEqual(variant_numbers.check(lab), [])

    def test_variant_zeros_number_left_in_a_variants_stub_comment_is_flagged(self):
        """A [variants] kernel replacement taken away: variant k's stub keeps the lab's comment
        `// 4096` on kChunkTileBytes' line (its tile is another size), and is flagged; the lab's
        own replacements pass (test_every_lab_passes)."""
        with lab05_copy() as (root, lab):
            v0 = variant_numbers.varying_constants(lab)["kChunkTileBytes"][0]
            toml = lab.dir / "judge" / "lab.toml"
            text = toml.read_text()
            line = '["kChunkRows * kChunksPerRow * kChunkBytes;  // 4096", "kChunkRows * kChunksPerRow * kChunkBytes;  // 32 x {rowbytes}"],'
            self.assertIn(line, text)
            toml.write_text(text.replace(line, ""))
            got = variant_numbers.check(banklab_labs.find_labs(root)["05"])
            self.assertTrue(got and all("kernel.cu as variant" in g and f"kChunkTileBytes = {v0}" in g for g in got), got)


if __name__ == "__main__":
    unittest.main()
