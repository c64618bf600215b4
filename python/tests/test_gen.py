#!/usr/bin/env python3
"""Tests of python/banklab/lab/gen.py's judge-test generation: the kernel-name mangler against
symbols a compiler gave, and the teaching errors of index / label / at_minimum / [[kernels]].

    python3 -m unittest python/tests/test_gen.py
"""
import copy
import os
import tomllib
import unittest

from banklab.lab import gen  # noqa: E402
from banklab.lab import lab_tests  # noqa: E402
from banklab.lab import description as banklab_description  # noqa: E402
from banklab.lab import schema  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# (namespace, kernel, params, the symbol g++ / nvcc gave the same declaration)
SYMBOLS = [
    ("lab00", "multiply_by_i", "const float* in, float* out", "_ZN5lab0013multiply_by_iEPKfPf"),
    ("lab02", "eval_channels", "const float* x, const float* coefs, float* y", "_ZN5lab0213eval_channelsEPKfS1_Pf"),
    ("lab03", "deinterleave", "float4* a_out, float4* b_out, const float4* in, int pairs",
     "_ZN5lab0312deinterleaveEP6float4S1_PKS0_i"),
    ("lab04", "transpose_padded", "float* odata, const float* idata, int width, int height",
     "_ZN5lab0416transpose_paddedEPfPKfii"),
    ("lab06", "gemm_ldmatrix", "float* c, const __half* a, const __half* b, int m, int n, int k",
     "_ZN5lab0613gemm_ldmatrixEPfPK6__halfS3_iii"),
    ("lab07", "k1", "unsigned* a, const double* __restrict__ b, const int n", "_ZN5lab072k1EPjPKdi"),
    ("lab07", "k2", "half* h, const half* g, const __half* f, float4* v", "_ZN5lab072k2EP6__halfPKS0_S3_P6float4"),
    ("lab07", "k3", "int2* const p, const int2* q, size_t n, unsigned long long m, long long x, char* c, const char* d",
     "_ZN5lab072k3EP4int2PKS0_myxPcPKc"),
    ("lab07", "k4", "float** pp, const float* const* cp, float* const* pc", "_ZN5lab072k4EPPfPKPKfPKS0_"),
    ("lab07", "k5", "", "_ZN5lab072k5Ev"),
    ("lab07", "k6", "unsigned int a, unsigned char* b, short s, bool f, double d", "_ZN5lab072k6EjPhsbd"),
]


def description(folder="04_padding"):
    with open(os.path.join(ROOT, "labs", folder, "judge", "lab.toml"), "rb") as f:
        return tomllib.load(f)


class Mangle(unittest.TestCase):
    def test_symbols_a_compiler_gave(self):
        for ns, name, params, symbol in SYMBOLS:
            with self.subTest(kernel=name):
                self.assertEqual(banklab_description.mangle(ns, name, params), symbol)

    def test_a_type_it_does_not_know(self):
        with self.assertRaisesRegex(schema.DescriptionError, "not part of the types"):
            banklab_description.mangle("lab07", "k", "float (&a)[4]")


class InstructionTests(unittest.TestCase):
    def check(self, d):
        banklab_description.check(d)
        return d

    def test_every_lab_generates_its_tests(self):
        for folder in sorted(os.listdir(os.path.join(ROOT, "labs"))):
            if os.path.exists(os.path.join(ROOT, "labs", folder, "judge", "lab.toml")):
                with self.subTest(lab=folder):
                    d = self.check(description(folder))
                    d["lab"], d["folder"] = folder[:2], folder
                    self.assertIn("namespace lab", gen.judge_header(d, "lab.toml"))
                    self.assertTrue(any(t.suite.endswith("Layout") for t in lab_tests.generated(d["lab"], d)))

    def test_a_label_names_an_index_it_does_not_have(self):
        d = description()
        d["instructions"][0]["label"] = "warp {q}"
        with self.assertRaisesRegex(schema.DescriptionError, r"key 'label'.*'index' \[w, s\]"):
            self.check(d)

    def test_index_needs_one_name_per_dim(self):
        d = description()
        d["instructions"][0]["index"] = ["w"]
        with self.assertRaisesRegex(schema.DescriptionError, "one name per dimension"):
            self.check(d)

    def test_at_minimum_needs_a_label(self):
        d = description()
        del d["instructions"][0]["label"]
        with self.assertRaisesRegex(schema.DescriptionError, "needs key 'label'"):
            self.check(d)

    def test_at_minimum_needs_exactly_one_hint(self):
        d = description()
        d["instructions"][0]["at_minimum"] = {"test": "X"}
        with self.assertRaisesRegex(schema.DescriptionError, "either 'hint'"):
            self.check(d)

    def test_two_at_minimum_tests_of_one_name(self):
        d = description()
        d["instructions"][1]["at_minimum"] = copy.deepcopy(d["instructions"][0]["at_minimum"])
        with self.assertRaisesRegex(schema.DescriptionError, "already the test of row_write"):
            self.check(d)

    def test_only_names_an_index(self):
        d = description()
        d["instructions"][0]["at_minimum"]["only"] = {"m": 0}
        with self.assertRaisesRegex(schema.DescriptionError, "key 'only': 'm' is not one of key 'index'"):
            self.check(d)

    def test_a_picked_word_needs_two_words(self):
        d = description()
        d["instructions"][0]["label"] = "warp {w: A}"
        with self.assertRaisesRegex(schema.DescriptionError, "separated by '\\|'"):
            self.check(d)

    def test_a_kernel_without_its_entry(self):
        d = description()
        d["kernels"][0]["name"] = "other"
        with self.assertRaisesRegex(schema.DescriptionError, "has no \\[\\[kernels\\]\\] entry"):
            self.check(d)

    def test_the_labels_of_lab06(self):
        d = self.check(description("06_ldmatrix"))
        d["lab"], d["folder"] = "06", "06_ldmatrix"
        text = gen.judge_header(d, "lab.toml")
        self.assertIn('grader::pick(t, {"A", "B"})', text)
        self.assertIn("std::to_string(32 * (w / 2) + 16 * i + 15)", text)


class VariantNumbers(unittest.TestCase):
    """The judge reads what a variant changes in the kernel from the generated description header
    (grader_desc::variant_value): every number parameter, one row per variant, row 0 the lab's."""

    def test_lab05_lists_its_row_lengths(self):
        v = description("05_swizzle")["variants"]
        text = "\n".join(gen.variant_numbers(v))
        self.assertIn('kVariantParams[] = {"col", "chunk", "bytes", "chunks", "rowbytes"};', text)  # elem: a word
        rows = [[r[i] for i in (0, 1, 3, 4, 5)] for r in v["values"]]
        self.assertIn("kVariantValues[][5] = {" + ", ".join("{" + ", ".join(map(str, r)) + "}" for r in rows) + "};",
                      text)
        self.assertEqual(rows[0][3], 8, "variant 0 is the lab as written: 8 chunks a row")
        self.assertGreater(len({r[3] for r in rows}), 1, "some variant changes the float4 tile's rows")

    def test_no_numbers_no_table(self):
        self.assertEqual(gen.variant_numbers(None), [])
        self.assertEqual(gen.variant_numbers({"params": ["elem"], "values": [["float"], ["double"]]}), [])
        # a parameter that is a number in one row and a word in another is no number parameter
        self.assertEqual(gen.variant_numbers({"params": ["n"], "values": [[1], ["two"]]}), [])


class Driver(unittest.TestCase):
    def test_the_table_is_up_to_date(self):
        self.assertEqual(gen.driver_main(["--check"]), 0,
                         "python3 python/banklab_run.py -m banklab.lab.gen --driver writes it again")


if __name__ == "__main__":
    unittest.main()
