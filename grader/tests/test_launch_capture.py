#!/usr/bin/env python3
"""The probe records what the student's launchers launch (grader/probe/probe_runtime.cpp),
on the real judge, without a GPU: every solution's launcher gives the handout's launch shape,
a launcher that launches one block too many is recorded as such, and launchers that launch
nothing, crash, hang or exit give a record saying so, never a broken build.

  test_launch_capture.py --judge build/dev/grader/banklab-judge --root .
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ARGS = None

#: The labs whose launch shapes this test knows (below), as found in the course: {"00": Lab, ...}.
CHECKED = ("00", "01", "02", "03", "04", "05")
LABS = {}


def judge(*args, timeout=300):
    return subprocess.run([ARGS.judge, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=timeout)


def read_calls(path):
    """{name: (status, [buffer bytes], [launch fields])} from an answers file."""
    calls = {}
    with open(path) as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        t = lines[i].split()
        i += 1
        if not t or t[0] != "call":
            continue
        name, status, nbuf = t[1], t[2], int(t[3])
        bufs = [int(x) for x in t[4:4 + nbuf]]
        n = int(t[4 + nbuf])
        launches = [lines[i + k].split() for k in range(n)]
        i += n
        calls[name] = (status, bufs, launches)
    return calls


def launch_of(rec):
    """(kernel, grid, block, shared, args) of an 'L ...' line."""
    assert rec[0] == "L" and rec[1] == "launch", rec
    grid = tuple(int(x) for x in rec[3:6])
    block = tuple(int(x) for x in rec[6:9])
    return rec[2], grid, block, int(rec[9]), rec[10:]


class LaunchCapture(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="banklab-launch-test-")
        os.chmod(cls.tmp, 0o755)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def build(self, lab, text, name):
        d = os.path.join(self.tmp, name)
        os.makedirs(d, exist_ok=True)
        os.chmod(d, 0o755)
        src = os.path.join(d, "kernel.cu")
        with open(src, "w") as f:
            f.write(text)
        os.chmod(src, 0o644)
        work = os.path.join(d, "work")
        r = judge("build", "--lab", lab, "--source", src, "--work", work)
        self.assertEqual(r.returncode, 0, r.stdout)
        return work, read_calls(os.path.join(work, "answers.txt"))

    def solution(self, lab):
        return LABS[lab].solution.read_text()

    def assert_one_launch(self, calls, name, kernel, grid, block, nbufs):
        self.assertIn(name, calls)
        status, bufs, launches = calls[name]
        self.assertEqual(status, "ok", name)
        self.assertEqual(len(bufs), nbufs, name)
        self.assertEqual(len(launches), 1, name)
        k, g, b, shared, args = launch_of(launches[0])
        self.assertEqual((k, g, b, shared), (kernel, grid, block, 0), name)
        # every pointer argument points at the start of one of the call's buffers, in order
        ptrs = [(args[j + 1], args[j + 2]) for j in range(1, len(args)) if args[j] == "p"]
        self.assertEqual(ptrs, [(str(n), "0") for n in range(nbufs)], name)

    def test_every_solution_records_the_handouts_launch_shape(self):
        for lab in LABS:
            with self.subTest(lab=lab):
                _, calls = self.build(lab, self.solution(lab), "solution" + lab)
                if lab == "00":
                    for t in (256, 16384):
                        self.assert_one_launch(calls, f"multiply_by_i_tiles_{t}", "_ZN5lab0013multiply_by_iEPKfPf",
                                               (t, 1, 1), (32, 1, 1), 2)
                elif lab == "01":
                    for r in (16384, 524288):
                        self.assert_one_launch(calls, f"row_sums_launch_{r}", "_ZN5lab018row_sumsEPKfPf",
                                               (r // 32, 1, 1), (32, 1, 1), 2)
                elif lab == "02":
                    for n in (65536, 1 << 24):
                        self.assert_one_launch(calls, f"eval_channels_launch_{n}", "_ZN5lab0213eval_channelsEPKfS1_Pf",
                                               (n // 128, 1, 1), (128, 1, 1), 3)
                elif lab == "03":
                    for p in (16384, 1 << 20):
                        self.assert_one_launch(calls, f"split_pairs_{p}", "_ZN5lab0312deinterleaveEP6float4S1_PKS0_i",
                                               (p // 256, 1, 1), (256, 1, 1), 3)
                else:
                    kernel = {"04": "_ZN5lab0416transpose_paddedEPfPKfii", "05": "_ZN5lab0518transpose_swizzledEPfPKfii"}[lab]
                    for w, h in ((1024, 1024), (256, 96), (4096, 4096), (16384, 16384)):
                        self.assert_one_launch(calls, f"transpose_{w}x{h}", kernel, (w // 32, h // 32, 1), (32, 8, 1), 2)
                        _, _, launches = calls[f"transpose_{w}x{h}"]
                        self.assertEqual(launches[0][-4:], ["i", str(w), "i", str(h)])
                    if lab == "05":
                        for w, h in ((64, 256), (1024, 4096)):
                            self.assert_one_launch(calls, f"transpose4_{w}x{h}", "_ZN5lab0516transpose_float4EP6float4PKS0_ii",
                                                   (w // 8, h // 32, 1), (256, 1, 1), 2)

    def test_a_launcher_that_launches_one_block_too_many_is_recorded_as_such(self):
        text = self.solution("01")
        line = "  row_sums<<<rows / TILE_DIM, TILE_DIM, 0, stream>>>(in, sums);"
        self.assertIn(line, text)
        _, calls = self.build("01", text.replace(line, line.replace("rows / TILE_DIM,", "rows / TILE_DIM + 1,")), "plus1")
        self.assert_one_launch(calls, "row_sums_launch_16384", "_ZN5lab018row_sumsEPKfPf", (513, 1, 1), (32, 1, 1), 2)

    def test_the_32x16_transpose_records_its_block(self):
        text = self.solution("04").replace("constexpr int BLOCK_ROWS = 8;", "constexpr int BLOCK_ROWS = 16;")
        _, calls = self.build("04", text, "rows16")
        self.assert_one_launch(calls, "transpose_4096x4096", "_ZN5lab0416transpose_paddedEPfPKfii", (128, 128, 1),
                               (32, 16, 1), 2)

    def test_odd_launchers_give_a_record_not_a_broken_build(self):
        text = self.solution("01")
        body = "  row_sums<<<rows / TILE_DIM, TILE_DIM, 0, stream>>>(in, sums);"
        cases = {
            # launches nothing: recorded as a call with no launch
            "nothing": ("  (void)in; (void)sums; (void)rows; (void)stream;", "ok", 0),
            # reads a device pointer on the host: the child crashes, the probe goes on
            "crash": ("  volatile float x = in[0]; (void)x; (void)sums; (void)rows; (void)stream;", "crashed", 0),
            # calls runtime functions the capture does not replace: they fail without a GPU, the launch is recorded
            "runtime": ("  cudaMemsetAsync(sums, 0, rows * sizeof(float), stream); cudaGetLastError();\n" + body, "ok", 1),
            # ends the process
            "exit": ("  (void)in; (void)sums; (void)rows; (void)stream; std::exit(3);", "exited", 0),
            # never returns
            "hang": ("  (void)in; (void)sums; (void)rows; (void)stream; for (volatile int i = 0;; i = i + 1) {}", "hung", 0),
            # launches twice (two halves): both recorded
            "twice": ("  row_sums<<<rows / TILE_DIM / 2, TILE_DIM, 0, stream>>>(in, sums);\n"
                      "  row_sums<<<rows / TILE_DIM / 2, TILE_DIM, 0, stream>>>(in + rows / 2 * TILE_DIM, sums + rows / 2);",
                      "ok", 2),
        }
        for name, (code, status, n) in cases.items():
            with self.subTest(case=name):
                src = text.replace(body, code)
                if "std::exit" in code:
                    src = "#include <cstdlib>\n" + src
                work, calls = self.build("01", src, "odd_" + name)
                st, _, launches = calls["row_sums_launch_16384"]
                self.assertEqual((st, len(launches)), (status, n))
                # the CPU tier is untouched by the launcher
                r = judge("test", "--lab", "01", "--work", work, "--test", "Lab01Layout.RowSumLoadsAreConflictFree")
                self.assertEqual(r.returncode, 0, r.stdout)
                if name == "twice":
                    _, _, _, _, args = launch_of(launches[1])
                    self.assertEqual(args, ["2", "p", "0", str(16384 // 2 * 32 * 4), "p", "1", str(16384 // 2 * 4)])

    def test_a_garbled_call_record_is_refused(self):
        _, _ = self.build("01", self.solution("01"), "garble")
        work = os.path.join(self.tmp, "garble", "work")
        path = os.path.join(work, "answers.txt")
        with open(path) as f:
            text = f.read()
        self.assertIn(" 512 1 1 32 1 1 ", text)
        with open(path, "w") as f:
            f.write(text.replace(" 512 1 1 32 1 1 ", " 512 1 1 x 1 1 ", 1))
        r = judge("test", "--lab", "01", "--work", work, "--test", "Lab01Layout.RowSumLoadsAreConflictFree")
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("garbled at the launcher call", r.stdout)


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--judge", required=True)
    p.add_argument("--root", required=True)
    ARGS, rest = p.parse_known_args()
    ARGS.judge = os.path.abspath(ARGS.judge)
    from banklab.lab import labs as banklab_labs   # the one reader of what a lab is
    LABS.update((n, lab) for n, lab in banklab_labs.find_labs(ARGS.root).items() if n in CHECKED)
    unittest.main(argv=[sys.argv[0], *rest], verbosity=2)


if __name__ == "__main__":
    main()
