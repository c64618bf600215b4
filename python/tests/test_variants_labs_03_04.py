"""Lab 03's and lab 04's per-student variants (issue 35, docs/dev/VARIANTS.md): their numbers come
from the model through solutions/NN_name/variants.toml, differ per variant and keep the lesson."""
import re
import subprocess
import unittest

from banklab.lab import labs as banklab_labs
from banklab.lab import variants as V
from banklab.lab.description import DescriptionError

SEED = "unit-test-seed"


class LabVariants:
    """Shared checks; a subclass names the lab and the lesson every variant keeps."""
    number = ""

    @classmethod
    def setUpClass(cls):
        cls.lab = banklab_labs.find_labs()[cls.number]
        cls.v = V.read(cls.lab)

    def truth(self, k):
        """The model's count of every templated question of variant k (variant 0 too, from answers.toml)."""
        try:
            V.banklab_cli()
        except DescriptionError as e:
            self.skipTest(str(e))
        return V.model_answers(V.description(self.lab, k), V.answers(self.lab, k), set(self.v.answer_templates))

    def test_at_least_4_variants_above_the_base_and_12_students_get_3(self):
        self.assertGreaterEqual(self.v.count, 5)
        chosen = {V.choose(self.number, f"student{i:02d}", SEED, self.v.count) for i in range(12)}
        self.assertGreaterEqual(len(chosen), 3, chosen)

    def test_every_variants_numbers_differ_and_its_solved_file_holds_them(self):
        seen = {}
        for k in range(self.v.count):
            truth = self.truth(k)
            self.assertEqual(set(truth), set(self.v.answer_templates))
            key = tuple(truth[n] for n in sorted(truth))
            self.assertNotIn(key, seen, f"variant {k} has variant {seen.get(key)}'s numbers: {truth}")
            seen[key] = k
            if k:
                sol = V.solution(self.lab, k)
                for name, n in truth.items():
                    self.assertIn(f"constexpr int {name} = {n};", sol)
                self.lesson(truth, k)

    def test_the_questions_a_variant_leaves_keep_the_labs_answer_and_text(self):
        base = self.lab.answers()
        base_qs = {q["name"]: q for q in self.lab.questions}
        for k in range(1, self.v.count):
            a, d = V.answers(self.lab, k), V.description(self.lab, k)
            for q in d["questions"]:
                if q["name"] not in self.v.answer_templates:
                    self.assertEqual(a[q["name"]], base[q["name"]])
                    self.assertEqual(q.get("what"), base_qs[q["name"]].get("what"))

    def test_a_variants_stub_names_it_and_keeps_every_prediction_a_placeholder(self):
        for k in range(1, self.v.count):
            s = V.stub(self.lab, k)
            self.assertEqual(V.named_variant(s, self.number), k)
            self.assertEqual(re.findall(r"constexpr int (k\w+) = -1;", s), [q["name"] for q in self.lab.questions])
            for p in self.v.params_of(k).values():
                self.assertIn(str(p), s)


class Lab03VariantsTest(LabVariants, unittest.TestCase):
    number = "03"

    def lesson(self, truth, k):
        # stores never merge: the pair-shared store takes at least the load's wavefronts, and the
        # Nsight counter is the float4 load's wavefronts minus the 2 of its merged half-warps
        self.assertGreaterEqual(truth["kFloat2PairSharedStore"], truth["kFloat2PairSharedLoad"], k)
        self.assertEqual(truth["kFloat4PairSharedStride32NcuConflicts"], truth["kFloat4PairSharedStride32Load"] - 2, k)


class Lab04VariantsTest(LabVariants, unittest.TestCase):
    number = "04"

    def lesson(self, truth, k):
        # the unpadded column read conflicts, the padded one takes fewer wavefronts
        self.assertGreater(truth["kUnpaddedColumnReadWavefronts"], truth["kPaddedColumnReadWavefronts"], k)

    def test_every_variants_kernel_needs_another_pad_and_its_solved_file_has_the_smallest(self):
        """The kernel's tile of `rows` rows: a warp's column read takes 32 / rows columns (lane l: row
        l % rows), so the model's smallest conflict-free pad differs in every variant; the solved
        file's kPad is it (evaluated from the file's constants), the stub's (0) is conflicted."""
        from banklab.lab import variant_numbers
        try:
            cli = V.banklab_cli()
        except DescriptionError as e:
            self.skipTest(str(e))

        def wavefronts(pad, rows):
            offs = " ".join(str(((l % rows) * (32 + pad) + l // rows) * 4) for l in range(32))
            out = subprocess.run([cli, "predict", "-"], input=f"ld 4 ffffffff {offs}\n", capture_output=True,
                                 text=True, check=True).stdout
            return int(out.split()[0])
        pads = {}
        for k in range(self.v.count):
            rows = int(self.v.params_of(k)["rows"])
            smallest = next(p for p in range(33) if wavefronts(p, rows) == 1)
            pads[k] = smallest
            sol = variant_numbers.stub_constants(V.solution(self.lab, k))
            stub = variant_numbers.stub_constants(V.stub(self.lab, k))
            self.assertEqual(sol["kPad"], smallest, k)
            self.assertEqual(sol["kTileFloats"], rows * (32 + smallest), k)
            self.assertGreater(wavefronts(stub["kPad"], rows), 1, k)
        self.assertEqual(len(set(pads.values())), self.v.count, pads)


if __name__ == "__main__":
    unittest.main()
