#!/usr/bin/env python3
"""Turn the logs of bench/gpu_perf.sh into a Markdown table (stdout)."""
import datetime
import glob
import os
import re
import subprocess
import sys

logs = sys.argv[1]


def smi(q):
    try:
        return subprocess.run(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30).stdout.strip().splitlines()[0]
    except Exception:
        return "unknown"


CYC = re.compile(r"\[ CYCLES   \] (.*): ([\d.]+) cycles per warp instruction, model (\d+) wavefronts, minimum (\d+), cycles/minimum ([\d.]+)")
TIM = re.compile(r"\[ TIMING   \] (.*): measured ([\d.]+) wavefronts per instruction .*model predicts (\d+), minimum (\d+)")
BW = re.compile(r"\[ BANDWIDTH\] (.*): (\d+)x(\d+) floats, ([\d.]+) GB/s vs tiled copy ([\d.]+) GB/s = ([\d.]+) % of copy")
RES = re.compile(r"\[ +(OK|FAILED|SKIPPED) +\] (Lab\w+\.\w+) \(")

rows = {"solutions": {}, "labs": {}}
for path in sorted(glob.glob(os.path.join(logs, "*-grade_lab??.log"))):
    grade, lab = os.path.basename(path)[:-4].split("-grade_")
    rows[grade][lab] = open(path, errors="replace").read()

print("# GPU performance of the workbook's kernels {#gpu_perf}\n")
print(f"- GPU: {smi('name')}, driver {smi('driver_version')}, SM clock max {smi('clocks.max.sm')}")
print(f"- Date: {datetime.date.today().isoformat()}; produced by `bench/gpu_perf.sh` (one run)")
print("- Cycles: 32 warps of one block on one SM replay the access 4096 times; elapsed `clock64()` "
      "cycles / (4096 x 32), best of 5. One wavefront per clock per SM means cycles = wavefronts.\n")

ok_all = True
print("## Solutions: shared-memory-bound harness (target: cycles / minimum <= 1.05)\n")
print("| lab | access | cycles per warp instruction | model wavefronts | minimum | cycles / minimum | target |")
print("| --- | --- | ---: | ---: | ---: | ---: | --- |")
for lab, text in sorted(rows["solutions"].items()):
    for m in CYC.finditer(text):
        ok = float(m.group(5)) <= 1.05
        ok_all &= ok
        print(f"| {lab} | {m.group(1)} | {float(m.group(2)):.3f} | {m.group(3)} | {m.group(4)} | {float(m.group(5)):.3f} | {'met' if ok else 'MISSED'} |")

print("\n## Solutions: whole transposes against a tiled copy of the same size (target: >= 85 %)\n")
print("| lab | kernel | size | GB/s | copy GB/s | % of copy | target |")
print("| --- | --- | --- | ---: | ---: | ---: | --- |")
for lab, text in sorted(rows["solutions"].items()):
    for m in BW.finditer(text):
        ok = float(m.group(6)) >= 85.0 or int(m.group(2)) < 16384
        ok_all &= ok
        print(f"| {lab} | {m.group(1)} | {m.group(2)} x {m.group(3)} | {m.group(4)} | {m.group(5)} | {m.group(6)} | {'met' if ok else 'MISSED'} |")

print("\n## Stubs: measured slowdown beside the model's prediction\n")
print("| lab | access | cycles per warp instruction | measured wavefronts (timing) | model wavefronts | minimum | measured slowdown | predicted slowdown |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for lab, text in sorted(rows["labs"].items()):
    cyc = {m.group(1): m for m in CYC.finditer(text)}
    for m in TIM.finditer(text):
        c = cyc.get(m.group(1))
        mn = int(m.group(4))
        cycles = f"{float(c.group(2)):.3f}" if c else "-"
        meas = float(c.group(2)) if c else float(m.group(2))
        print(f"| {lab} | {m.group(1)} | {cycles} | {float(m.group(2)):.2f} | {m.group(3)} | {mn} | {meas / mn:.2f}x | {int(m.group(3)) / mn:.2f}x |")
    for m in BW.finditer(text):
        print(f"| {lab} | {m.group(1)} (whole transpose) | | | | | {m.group(6)} % of copy | |")

print("\n## Verdicts of the GPU tests in this run\n")
print("| build | lab | passed | failed | skipped |")
print("| --- | --- | ---: | ---: | ---: |")
for grade in ("solutions", "labs"):
    for lab, text in sorted(rows[grade].items()):
        res = {}
        for m in RES.finditer(text):
            res[m.group(2)] = m.group(1)
        n = lambda v: sum(1 for x in res.values() if x == v)
        print(f"| {grade} | {lab} | {n('OK')} | {n('FAILED')} | {n('SKIPPED')} |")
print(f"\nAll solution targets met: {'yes' if ok_all else 'NO'}")
