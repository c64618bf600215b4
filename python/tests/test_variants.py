"""banklab.lab.variants: a lab's per-student variants (issue 35, docs/dev/VARIANTS.md)."""
import copy
import hashlib
import hmac
import re
import unittest
import unittest.mock

from banklab.lab import lab_tests
from banklab.lab import labs as banklab_labs
from banklab.lab import variants as banklab_variants
from banklab.grading import judging
from banklab.lab.schema import DescriptionError
from banklab.lab import description as banklab_description

SEED = "unit-test-seed"


class VariantsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.lab = banklab_labs.find_labs()["01"]
        cls.v = banklab_variants.read(cls.lab)

    def test_lab01_declares_at_least_4_variants_above_the_base(self):
        self.assertIsNotNone(self.v)
        self.assertGreaterEqual(self.v.count, 5)
        self.assertEqual(self.v.params_of(0), {"elem": "float", "bytes": 4, "cols": 32, "s2": 2, "s4": 4, "s8": 8,
                                               "s16": 16, "s32": 32, "s48": 48})

    def test_twelve_students_get_at_least_3_variants_and_the_same_student_the_same(self):
        chosen = [banklab_variants.choose("01", f"student{i:02d}", SEED, self.v.count) for i in range(12)]
        self.assertGreaterEqual(len(set(chosen)), 3, chosen)
        self.assertEqual(chosen, [banklab_variants.choose("01", f"student{i:02d}", SEED, self.v.count) for i in range(12)])

    def test_the_choice_is_the_keyed_hash_of_lab_and_id(self):
        mac = hmac.new(b"k", b"lab 01:ann", hashlib.sha256).digest()
        self.assertEqual(banklab_variants.choose("01", "ann", "k", 7), int.from_bytes(mac, "big") % 7)
        # another seed, another course: some student's variant moves
        self.assertNotEqual([banklab_variants.choose("01", f"s{i}", "a", 5) for i in range(20)],
                            [banklab_variants.choose("01", f"s{i}", "b", 5) for i in range(20)])
        with self.assertRaises(ValueError):
            banklab_variants.choose("01", "ann", "", 5)
        self.assertEqual(banklab_variants.choose("01", " Ann ", "k", 7), banklab_variants.choose("01", "ann", "k", 7))   # one student, however spelt

    def test_variant_0_is_the_lab_as_written(self):
        self.assertEqual(banklab_variants.stub(self.lab, 0), self.lab.stub.read_text())
        self.assertEqual(banklab_variants.solution(self.lab, 0), self.lab.solution.read_text())
        self.assertEqual(banklab_variants.answers(self.lab, 0), self.lab.answers())
        self.assertIsNone(banklab_variants.named_variant(self.lab.stub.read_text(), "01"))

    def test_every_variant_has_its_own_stub_answers_and_marker(self):
        stubs = {banklab_variants.stub(self.lab, k) for k in range(self.v.count)}
        self.assertEqual(len(stubs), self.v.count)
        lines = {tuple(a["access"] for a in banklab_variants.answers(self.lab, k).values()) for k in range(self.v.count)}
        self.assertEqual(len(lines), self.v.count)
        for k in range(1, self.v.count):
            s = banklab_variants.stub(self.lab, k)
            self.assertEqual(banklab_variants.named_variant(s, "01"), k)
            self.assertIsNone(banklab_variants.named_variant(s, "05"))
            self.assertIn(str(self.v.params_of(k)["elem"]), s)
            self.assertEqual(re.findall(r"constexpr int (k\w+) = -1;", s),
                             [q["name"] for q in self.lab.questions])   # the stub's predictions stay placeholders

    def test_a_variants_description_passes_the_generators_check(self):
        for k in range(1, self.v.count):
            d = banklab_variants.description(self.lab, k)
            banklab_description.check(d, banklab_variants.answers(self.lab, k))
            self.assertIn(str(self.v.params_of(k)["elem"]), d["questions"][0]["what"])

    def test_the_solved_file_holds_the_models_counts_and_they_differ_by_variant(self):
        try:
            banklab_variants.banklab_cli()
        except DescriptionError as e:
            self.skipTest(str(e))
        seen = set()
        for k in range(1, self.v.count):
            truth = banklab_variants.model_answers(banklab_variants.description(self.lab, k), banklab_variants.answers(self.lab, k))
            sol = banklab_variants.solution(self.lab, k)
            for name, n in truth.items():
                self.assertIn(f"constexpr int {name} = {n};", sol)
            seen.add(tuple(truth.values()))
        self.assertEqual(len(seen), self.v.count - 1)

    def test_every_lab_with_variants_gives_12_students_3_variants_and_distinct_answers(self):
        labs = {n: lab for n, lab in banklab_labs.find_labs().items() if banklab_variants.read(lab)}
        self.assertGreaterEqual(set(labs), {"01", "05"})
        for n, lab in labs.items():
            v = banklab_variants.read(lab)
            chosen = {banklab_variants.choose(n, f"student{i:02d}", SEED, v.count) for i in range(12)}
            self.assertGreaterEqual(len(chosen), 3, (n, chosen))
            self.assertEqual(len({banklab_variants.stub(lab, k) for k in range(v.count)}), v.count, n)
            answers = {tuple(sorted((q, tuple(sorted(a.items()))) for q, a in banklab_variants.answers(lab, k).items()))
                       for k in range(v.count)}
            self.assertEqual(len(answers), v.count, n)

    def test_a_broken_variants_table_is_named(self):
        lab = copy.deepcopy(self.lab.description)
        lab["variants"]["values"].append(list(lab["variants"]["values"][0]))
        lab["variants"]["what"]["kNoSuchQuestion"] = "x"
        lab["variants"]["colour"] = 1
        broken = banklab_labs.Lab("01", self.lab.folder, lab, self.lab.root)
        with self.assertRaises(DescriptionError) as e:
            banklab_variants.read(broken)
        for words in ("two rows of `values` are the same variant", "kNoSuchQuestion", "unknown key 'colour'"):
            self.assertIn(words, str(e.exception))
        # A release's variant (make-release writes `release = K`) must be one of the lab's.
        for bad in (99, -1, "2", True):
            d = copy.deepcopy(self.lab.description)
            d["variants"]["release"] = bad
            with self.assertRaises(DescriptionError) as e:
                banklab_variants.read(banklab_labs.Lab("01", self.lab.folder, d, self.lab.root))
            self.assertIn("`release`", str(e.exception))
        d = copy.deepcopy(self.lab.description)
        d["variants"]["release"] = 3
        self.assertEqual(banklab_variants.read(banklab_labs.Lab("01", self.lab.folder, d, self.lab.root)).release, 3)

    def test_an_at_minimum_tests_asked_is_the_variants_own(self):
        """[variants] asked: variants >= 1 take it in place of the at_minimum test's own `asked`
        (lab 01: none of their questions asks the row-sum load's float load); one naming no
        at_minimum test or no question is refused."""
        def asked(d):
            return {t: am.get("asked") for t, _, am in lab_tests.at_minimum_tests(d)}
        self.assertEqual(asked(banklab_variants.description(self.lab, 0))["RowSumLoadsAreConflictFree"],
                         ["kStride32Wavefronts"])
        for k in range(1, self.v.count):
            self.assertIsNone(asked(banklab_variants.description(self.lab, k))["RowSumLoadsAreConflictFree"])
        d = copy.deepcopy(self.lab.description)
        d["variants"]["asked"] = {"RowSumLoadsAreConflictFree": ["kStride2Wavefronts"]}
        one = banklab_labs.Lab("01", self.lab.folder, d, self.lab.root)
        self.assertEqual(asked(banklab_variants.description(one, 2))["RowSumLoadsAreConflictFree"], ["kStride2Wavefronts"])
        for bad, words in (({"NoSuchTest": []}, "no at_minimum test"), ({"RowSumLoadsAreConflictFree": ["kNope"]}, "kNope"),
                           ({"RowSumLoadsAreConflictFree": "kStride2Wavefronts"}, "lists of question names")):
            d = copy.deepcopy(self.lab.description)
            d["variants"]["asked"] = bad
            with self.assertRaises(DescriptionError) as e:
                banklab_variants.read(banklab_labs.Lab("01", self.lab.folder, d, self.lab.root))
            self.assertIn(words, str(e.exception))

    def test_a_kernel_replacement_the_file_lacks_is_named(self):
        lab = copy.deepcopy(self.lab.description)
        lab["variants"]["kernel"] = [["text that is not in the stub", "x"]]
        broken = banklab_labs.Lab("01", self.lab.folder, lab, self.lab.root)
        with self.assertRaises(DescriptionError) as e:
            banklab_variants.stub(broken, 1)
        self.assertIn("text that is not in the stub", str(e.exception))

    def test_a_grader_always_names_the_variant(self):
        self.assertEqual(judging.variant_args("01", 3), (["--variant", "3"], 3))
        # no variant known: the lab as written, never the variant the file's own line names
        self.assertEqual(judging.variant_args("01", None), (["--variant", "0"], 0))
        # a lab without variants (every lab of the course has them now: one described without) and no such lab
        from unittest import mock
        with mock.patch.object(banklab_variants, "read", return_value=None):
            self.assertEqual(judging.variant_args("01", 3), ([], None))
        self.assertEqual(judging.variant_args("99", 3), ([], None))

    def test_labs_check_passes_the_labs_and_names_a_variant_that_asks_nothing_new(self):
        for lab in banklab_labs.find_labs().values():
            self.assertEqual(banklab_variants.check_lab(lab), [], lab.number)
        d = copy.deepcopy(self.lab.description)
        row0 = d["variants"]["values"][0]
        d["variants"]["values"] = [row0, ["float32"] + row0[1:]]   # other words, the same answers
        same = banklab_variants.check_lab(banklab_labs.Lab("01", self.lab.folder, d, self.lab.root))
        self.assertEqual(len(same), 1)
        self.assertIn("variant 1 has the same answers as variant 0", same[0])
        d = copy.deepcopy(self.lab.description)
        d["variants"]["what"]["kStride2Wavefronts"] = "a {elem} load {oops"
        self.assertEqual(len(banklab_variants.check_lab(banklab_labs.Lab("01", self.lab.folder, d, self.lab.root))), 1)

    def test_labs_check_names_a_variant_file_the_judge_would_misread(self):
        # a kernel replacement that renames a question's constant in the variants' stubs and solutions
        d = copy.deepcopy(self.lab.description)
        d["variants"]["kernel"].append(["constexpr int kStride3Wavefronts", "constexpr int kStride{bytes}Wavefronts"])
        lost = banklab_variants.check_lab(banklab_labs.Lab("01", self.lab.folder, d, self.lab.root))
        self.assertEqual(len(lost), 1, lost)
        self.assertIn("variant 1's stub does not define once each question's constant: kStride8Wavefronts, "
                      "kStride3Wavefronts", lost[0])
        # a marker line the judge's reader (MARKER_RE, as grader/judge/variants.cpp) does not read
        with unittest.mock.patch.object(banklab_variants, "MARKER", "// banklab: lab {lab}, variant {k} ({params})"):
            misread = banklab_variants.check_lab(self.lab)
        self.assertEqual(len(misread), 1, misread)
        self.assertIn("variant 1's stub names variant None on its `// banklab variant:` line, not 1", misread[0])

    def test_an_unknown_variant_is_refused(self):
        with self.assertRaises(DescriptionError):
            banklab_variants.stub(self.lab, self.v.count)


if __name__ == "__main__":
    unittest.main()


class ReleaseForOneStudentTest(unittest.TestCase):
    """labs-check's variants part on a release for one student (make-release --student): its stubs are
    that student's variants already; they pass as they are, and a broken one is named."""

    @classmethod
    def setUpClass(cls):
        import shutil
        import subprocess
        import sys
        import tempfile
        from pathlib import Path
        root = banklab_labs.repo_root()
        make = root / "instructor" / "make-release"
        if not make.is_file():
            raise unittest.SkipTest("no instructor/make-release in this tree (a student's release)")
        cls.tmp = Path(tempfile.mkdtemp(prefix="banklab-release-"))
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        cls.release = cls.tmp / "ann"
        subprocess.run([sys.executable, str(make), str(cls.release), "--student", "ann", "--course-seed", SEED],
                       check=True, capture_output=True)

    def lab(self, number: str) -> banklab_labs.Lab:
        return banklab_labs.find_labs(self.release)[number]

    def test_every_lab_of_the_release_passes(self):
        for number, lab in banklab_labs.find_labs(self.release).items():
            if banklab_variants.read(lab) is not None:
                self.assertIsNotNone(banklab_variants.named_variant(lab.stub.read_text(), number), number)
            self.assertEqual(banklab_variants.check_lab(lab), [], number)

    def test_a_stub_missing_a_questions_constant_is_named(self):
        lab = self.lab("01")
        text = lab.stub.read_text()
        name = lab.description["questions"][0]["name"]
        self.addCleanup(lab.stub.write_text, text)
        lab.stub.write_text(re.sub(rf"constexpr int {name} =", f"constexpr int {name}_gone =", text))
        problems = banklab_variants.check_lab(lab)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn(name, problems[0])
        self.assertIn("a release for one student", problems[0])

    def test_a_stub_naming_another_variant_than_the_release_is_named(self):
        lab = self.lab("02")
        release = banklab_variants.read(lab).release
        self.assertIsNotNone(release)          # make-release wrote `release = K` into the lab's [variants]
        other = 1 if release != 1 else 2
        text = lab.stub.read_text()
        self.addCleanup(lab.stub.write_text, text)
        lab.stub.write_text(banklab_variants.MARKER_RE.sub(f"// banklab variant: lab 02 variant {other}", text, count=1))
        problems = banklab_variants.check_lab(lab)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn(f"`release = {release}`", problems[0])
        self.assertIn(f"the stub names variant {other}", problems[0])

    def test_a_stub_naming_a_variant_the_lab_has_not_is_named(self):
        lab = self.lab("02")
        text = lab.stub.read_text()
        self.addCleanup(lab.stub.write_text, text)
        lab.stub.write_text(banklab_variants.MARKER_RE.sub("// banklab variant: lab 02 variant 99", text, count=1))
        problems = banklab_variants.check_lab(lab)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("not 99", problems[0])
