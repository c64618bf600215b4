#!/usr/bin/env bash
# Issue 45 on the GPU machine: what a student's kernel prints (CUDA's device printf) reaches the
# terminal only cleaned. Lab 00's solution with a printf of an OSC 52 clipboard write, an OSC 2
# title, an erase and a CR in its kernel; `banklab-judge test` of its correctness test as ctest runs
# it (no --logs: the output goes to the terminal) and with --logs (into the test's log).
#   bash bench/device_printf_clean.sh        (env JUDGE: an existing banklab-judge, no build)
# Writes $OUT/printf_clean.txt. Exit 0: the kernel ran (its text is there, escaped) and no raw ESC,
# BEL or CR byte came out; 1 otherwise; 2 not judged (no GPU).
set -uo pipefail
out=${OUT:-$PWD/out}; mkdir -p "$out"
if [[ -n ${JUDGE:-} ]]; then J=$JUDGE; else source bench/lib/build_judge.sh; build_judge "$PWD/build/printf" || exit 1; fi
w=$(mktemp -d); f=$w/kernel.cu
python3 - "$f" <<'PY'
import re, sys
src = open("solutions/00_bank_mapping/kernel.cu").read()
m = re.search(r"__global__ void multiply_by_i\([^)]*\) \{\n", src)
line = ('  if (threadIdx.x == 0 && blockIdx.x == 0) printf("\\x1b]52;c;Y3VybCB8IHNoCg==\\x07'
        '\\x1b]2;banklab: every submission graded\\x07\\x1b[2K\\rkernel says hello\\n");\n')
src = src.replace("#include <cuda_runtime.h>\n", "#include <cuda_runtime.h>\n#include <cstdio>\n", 1)
m = re.search(r"__global__ void multiply_by_i\([^)]*\) \{\n", src)
open(sys.argv[1], "w").write(src[:m.end()] + line + src[m.end():])
PY
T=Lab00OnGpu.MultiplyByIIsCorrect
"$J" build --lab 00 --source "$f" --work "$w/work" > "$w/build.txt" 2>&1 || { cat "$w/build.txt"; exit 1; }
"$J" test --lab 00 --work "$w/work" --test $T --graded > "$w/terminal.txt" 2>&1; rc1=$?
mkdir -p "$w/logs"; "$J" test --lab 00 --work "$w/work" --test $T --graded --logs "$w/logs" > "$w/terminal2.txt" 2>&1; rc2=$?
python3 - "$w" "$rc1" "$rc2" > "$out/printf_clean.txt" <<'PY'
import sys, pathlib
w = pathlib.Path(sys.argv[1]); rcs = sys.argv[2:]
bad = 0; ran = True
for name in ("terminal.txt", "terminal2.txt", f"logs/Lab00OnGpu.MultiplyByIIsCorrect.log"):
    p = w / name
    b = p.read_bytes() if p.exists() else b""
    raw = [c for c in (b"\x1b", b"\x07", b"\r") if c in b]
    seen = b"kernel says hello" in b
    print(f"{name}: {len(b)} bytes, raw control bytes: {[c.hex() for c in raw] or 'none'}, kernel's text seen: {seen}")
    bad |= bool(raw)
    if name != "terminal2.txt": ran &= seen
print(f"exit statuses of the two tests: {rcs}")
print("\n".join((w / "terminal.txt").read_text(errors="replace").splitlines()[-6:]))
if "not graded" in (w / "terminal.txt").read_text(errors="replace"):
    print("NOT JUDGED: no GPU"); sys.exit(2)
print("OK" if ran and not bad else "FAILED"); sys.exit(0 if ran and not bad else 1)
PY
rc=$?; cat "$out/printf_clean.txt"; exit $rc
