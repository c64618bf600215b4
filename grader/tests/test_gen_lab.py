#!/usr/bin/env python3
"""python/banklab/lab/gen.py refuses a broken lab description, naming the file and the key.

Each case edits a copy of lab 05's description labs/05_swizzle/judge/lab.toml, of its answers
solutions/05_swizzle/answers.toml or of its probe labs/05_swizzle/judge/probe.cu (its test.cu copied too) (found through
python/banklab/lab/labs.py) and expects banklab.lab.gen to fail with a message that names the file
and says what is wrong; the unedited description must pass.

  test_gen_lab.py --root .
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

CASES = [  # (what is edited, old text, new text, words the message must hold)
    ("answers", '[kStoredColumnOfRow5Col3]\nvalue =', '[kStoredColumnOfRow5Col3]\nvalu =', ["unknown key 'valu'", "kStoredColumnOfRow5Col3"]),
    ("toml", 'hint = "rows are 32 floats long. Which bank holds tile[i][5], for each i?"\n', "",
     ["missing key 'hint'", "kUnswizzledColumnReadWavefronts"]),
    ("toml", 'op = "st"\nwidth = 4', 'op = "sts"\nwidth = 4', ["key 'op'", "'sts'", "row_write"]),
    ("toml", 'op = "ld"\nwidth = 16', 'op = "ld"\nwidth = 12', ["key 'width'", "chunk_column_read"]),
    ("toml", 'name = "kSwizzledColumnReadWavefronts"', 'name = "kUnswizzledColumnReadWavefronts"',
     ["two questions named 'kUnswizzledColumnReadWavefronts'"]),
    ("toml", 'name = "chunk_offset"', 'name = "tile_index"', ["two tables named 'tile_index'"]),
    ("toml", 'asked = ["kUnswizzledColumnReadWavefronts", ', 'asked = ["kUnswizzledColumnRead", ',
     ["key 'asked'", "'kUnswizzledColumnRead'", "column_read"]),
    ("answers", 'access = "ld 4 (lane * 32 + 5) * 4"', 'access = "ld 4 (lane * 32 + 5 * 4"', ["key 'access'", "')'"]),
    ("answers", 'access = "ld 4 (lane * 32 + 5) * 4"', 'access = "ld 4 (row * 32 + 5) * 4"', ["key 'access'", "'row'"]),
    ("toml", 'asks = "value"\nrange = [0, 31]', 'asks = "values"\nrange = [0, 31]', ["key 'asks'", "'values'"]),
    # a value question says what range a prediction may take (the judge refuses any other value)
    ("toml", 'range = [0, 31]\n', '', ["missing key 'range'", "kStoredColumnOfRow5Col3"]),
    ("toml", 'range = [0, 31]\n', 'range = [31, 0]\n', ["key 'range'", "kStoredColumnOfRow5Col3"]),
    ("toml", 'asks = "wavefronts"\n', 'asks = "wavefronts"\ntma_swizzle = "16"\n', ["key 'tma_swizzle'"]),
    ("toml", 'roles = ["traced", "timing"]', 'roles = ["traced"]', ["key 'roles'", "transpose4"]),
    ("toml", 'sizes = [[64, 256], [1024, 4096]]', 'sizes = [[64, 256], [1024]]', ["key 'sizes'", "transpose4"]),
    ("toml", '[probe]\nconstants = ["TILE_DIM",', '[probe]\nconstants = ["TILE_DIM", "TILE_DIM",', ["two constants named 'TILE_DIM'"]),
    # the keys the lab list reads are the generator's too (one schema, banklab/lab/schema.py)
    ("toml", "selftest.generic_cheats = true", 'selftest.generic_cheats = "yes"', ["[selftest]", "key 'generic_cheats'"]),
    ("toml", "points.gates = [", "points.gate = [", ["[points]", "unknown key 'gate'"]),
    # the GPU tier's keys (banklab/lab/gpu_tier.py): a timing's slice, the transpose's kernel, a traced test
    ("toml", 'timing = { test = "ColumnReadMeetsTheTimingTarget", nth = 5 }',
     'timing = { test = "ColumnReadMeetsTheTimingTarget", only = { q = 1 }, nth = 5 }', ["timing #1", "key 'only'", "'q'", "column_read"]),
    ("toml", 'timing = { test = "ColumnReadMeetsTheTimingTarget", nth = 5 }',
     'timing = { test = "ColumnReadMeetsTheTimingTarget", nth = 5, at = 2 }', ["timing #1", "unknown key 'at'"]),
    ("toml", 'timing = { test = "ColumnReadMeetsTheTimingTarget", nth = 5 }',
     'timing = { test = "ChunkColumnReadMeetsTheTimingTarget", nth = 5 }', ["two tests named 'ChunkColumnReadMeetsTheTimingTarget'"]),
    ("toml", '[gpu.transpose]\nkernel = "transpose_swizzled"', '[gpu.transpose]\nkernel = "transpose_float4"',
     ["[gpu.transpose]", "launcher = 'transpose', kernel = 'transpose_float4'"]),
    ("toml", 'traced = ["TracedSharedAccessesOfBothKernelsAreConflictFree"]', 'traced = ["TracedSomethingElse"]',
     ["[gpu] traced", "'TracedSomethingElse'", "test.cu"]),
    ("toml", "emulated = true", 'emulated = "yes"', ["[gpu]", "key 'emulated'"]),
    ("probe", "long long lab05_desc::access_chunk_column_read", "long long lab05_desc::access_chunk_column_reads",
     ["defines no lab05_desc::access_chunk_column_read", "access_chunk_column_reads"]),
]


def run(gen, files, out):
    return subprocess.run([sys.executable, "-m", gen, files["toml"], out, "--probe", files["probe"],
                           "--answers", files["answers"]], capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    a = ap.parse_args()
    gen = "banklab.lab.gen"
    from banklab.lab import labs as banklab_labs   # noqa: E402  (the one reader of what a lab is)
    lab = banklab_labs.find_labs(a.root)["05"]
    # test.cu goes with them: the generator checks [gpu] traced against the test.cu beside the description
    src = {"toml": str(lab.description_path), "probe": str(lab.probe), "answers": str(lab.answers_path),
           "test": str(lab.test)}
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        r = run(gen, src, os.path.join(tmp, "out"))
        if r.returncode != 0:
            print(f"FAIL: the unedited description is refused:\n{r.stderr}")
            bad += 1
        for n, (which, old, new, words) in enumerate(CASES, 1):
            files = {}
            for k, p in src.items():   # in a folder named as the lab's: the generator reads the lab from it
                files[k] = os.path.join(tmp, f"case{n}", lab.folder, os.path.basename(p))
                os.makedirs(os.path.dirname(files[k]), exist_ok=True)
                shutil.copy(p, files[k])
            text = open(files[which]).read()
            if old not in text:
                print(f"FAIL case {n}: {old!r} is not in {src[which]} (update the case)")
                bad += 1
                continue
            open(files[which], "w").write(text.replace(old, new, 1))
            r = run(gen, files, os.path.join(tmp, f"case{n}", "out"))
            msg = r.stderr
            missing = [w for w in words + [f"{lab.folder}/lab.toml:"] if w not in msg]
            if r.returncode != 1 or missing:
                print(f"FAIL case {n} ({which}: {new[:50]!r}): exit {r.returncode}, message lacks {missing}:\n{msg}")
                bad += 1
            else:
                print(f"ok   case {n}: {msg.strip()}")
    print(f"{len(CASES)} broken descriptions, {bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
