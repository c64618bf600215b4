#!/usr/bin/env bash
# One device call (issue 47): the judge's own GPU tests of labs 00-05, stub and solution, graded on
# the H200 and on the emulator (BANKLAB_EMULATE=1: the judge's emulated twin) on the same machine;
# every GPU test but timing must have the same status and, for the traced test, the same message.
#   run: bash emu/bench/emu_tier_vs_gpu_device.sh        (writes $OUT/emu_tier.tgz)
# What comes back: per lab and file gpu.json, emu.json (the grades), seconds.txt (each grade's wall
# time), compare.txt (one line per test: same, or both statuses and the first differing line).
set -u
OUT=${OUT:-/tmp/out}
out=$OUT/emu_tier; mkdir -p "$out"
source bench/lib/build_judge.sh
build_judge /tmp/judge-emu-tier || exit 1
[[ -x ${J}-emu ]] || { echo "no emulated twin beside $J"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/versions.txt" 2>&1
for lab in 00 01 02 03 04 05; do
  folder=$(basename "$(ls -d solutions/${lab}_*)")
  for who in labs solutions; do
    d=$out/$lab-$who; mkdir -p "$d"
    for dev in gpu emu; do
      w=/tmp/emu-tier/$lab-$who-$dev; rm -rf "$w"
      t0=$(date +%s%N)
      if [[ $dev == emu ]]; then
        BANKLAB_EMULATE=1 "$J" grade --lab "$lab" --source "$who/$folder/kernel.cu" --work "$w" --json "$d/$dev.json" --tier gpu > "$d/$dev.log" 2>&1
      else
        "$J" grade --lab "$lab" --source "$who/$folder/kernel.cu" --work "$w" --json "$d/$dev.json" --tier gpu > "$d/$dev.log" 2>&1
      fi
      echo "$lab $who $dev $(( ($(date +%s%N) - t0) / 1000000 )) ms" >> "$out/seconds.txt"
    done
  done
done
python3 - "$out" > "$out/compare.txt" <<'PY'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
for d in sorted(p for p in out.iterdir() if p.is_dir()):
    try:
        g = {v["test"]: v for v in json.loads((d / "gpu.json").read_text())["verdicts"] if v.get("tier") == "gpu"}
        e = {v["test"]: v for v in json.loads((d / "emu.json").read_text())["verdicts"] if v.get("tier") == "gpu"}
    except (OSError, ValueError) as x:
        print(d.name, "no grade:", x)
        continue
    for t in sorted(g):
        a, b = g[t], e.get(t, {})
        if b.get("message", "").startswith("needs a GPU: this test times kernels"):
            print(d.name, t, "timing: gpu", a["status"], "| emulator skipped")
            continue
        same = a["status"] == b.get("status") and ("Traced" not in t or a["message"] == b.get("message"))
        first = next((x for x, y in zip(a["message"].splitlines(), b.get("message", "").splitlines()) if x != y), "")
        print(d.name, t, "same" if same else f"DIFFERENT: gpu {a['status']} emu {b.get('status')}: {first[:300]}")
PY
tar -C "$OUT" -czf "$OUT/emu_tier.tgz" emu_tier && rm -rf "$out"
