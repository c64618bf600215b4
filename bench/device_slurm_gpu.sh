#!/usr/bin/env bash
# The GPU tier through a real Slurm task on a GPU (issue 46, item 6), on the GPU machine, as root:
# a single-node Slurm (Debian 12's Slurm 22.05 and munge from .carry/slurm: tools/make-carry-slurm)
# with one GPU gres (File=/dev/nvidia0), a class of every lab (each lab's solution, its stub, and
# its first known-bad case a GPU test catches: bench/slurm_gpu_class.py make), graded
# `--tier all --graded` by the local engine and by `--engine slurm` on the same machine; their
# verdicts, gradebook.csv and lms.csv compared (bench/slurm_gpu_class.py compare), with the time a
# submission. Then the node's GPU made one CUDA cannot open (bench/lib/slurm_node.sh's task prolog):
# one submission graded through Slurm must be requeued and end NOT graded, never a grade.
#   bash bench/device_slurm_gpu.sh [LAB ...]        (default: 00 ... 07)
#   Env: JUDGE (an existing judge; else bench/lib/build_judge.sh builds one), JOBS (judges at once:
#   local -j and the Slurm tasks' --cpus-per-task, default 8), SHARD (--slurm-shard, default 8),
#   TIER (default all), GRADED (1: --graded, the default), GPU_FILE (the gres's device, default
#   /dev/nvidia0; on a machine without one, e.g. this script's dry run on a GPU-less machine, give
#   any device file: every GPU-tier task then finds no usable GPU), LIMIT (seconds for each engine, default 240), KINDS (the students kept of "solved stub bad",
#   default all three), BUILD (the judge's build folder, default /tmp/slurmgpu-build).
# Writes $OUT/summary.txt and $OUT/table.md as it goes, and $OUT/device_slurm_gpu.tar.gz (both OUT
# folders' gradebooks and results, Slurm's logs, the task logs). Exit 0 when the engines agree and
# the broken GPU was no grade.
set -uo pipefail
out=${OUT:-$PWD/out}; mkdir -p "$out"
W=${WORK:-/tmp/device_slurm_gpu}; rm -rf "$W"; mkdir -p "$W"; chmod 755 "$W"   # the sandbox's uid reads it
S=$out/summary.txt; : >"$S"
say() { echo "$*" | tee -a "$S"; }
t0=$(date +%s)
if [[ -n ${JUDGE:-} ]]; then J=$JUDGE; else source bench/lib/build_judge.sh; build_judge "${BUILD:-/tmp/slurmgpu-build}" || exit 1; fi
say "judge ready in $(( $(date +%s) - t0 )) s: $J; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo 'no GPU'), $(nproc) CPUs"
labs=("$@")
JOBS=${JOBS:-8}; SHARD=${SHARD:-8}; TIER=${TIER:-all}; LIMIT=${LIMIT:-240}
graded=(); [[ ${GRADED:-1} == 1 ]] && graded=(--graded)
python3 bench/slurm_gpu_class.py make "$W/subs" "${labs[@]}"
[[ -n ${KINDS:-} ]] && for k in solved stub bad; do [[ " $KINDS " == *" $k "* ]] || rm -rf "${W:?}/subs/$k"; done | tee -a "$S"
chmod -R a+rX "$W/subs"
n=$(find "$W/subs" -name '*.cu' | wc -l)
lab_arg=(--lab all)
common=(--tier "$TIER" "${graded[@]}" --judge "$J" --timeout 300)

source bench/lib/slurm_node.sh
trap 'slurm_node_stop "$W/slurm"' EXIT
slurm_node_start .carry/slurm "$W/slurm" "${GPU_FILE:-/dev/nvidia0}" 2>&1 | tee -a "$S"
[[ ${PIPESTATUS[0]} -eq 0 ]] || { say "Slurm did not start"; exit 1; }
export SLURM_CONF=$W/slurm/slurm.conf PATH=$W/slurm/bin:$PATH   # (the pipe ran it in a subshell)

# 1. The local engine.
t=$(date +%s.%N)
timeout "$LIMIT" python3 instructor/batch/grade-class "$W/subs" --out "$W/local" "${lab_arg[@]}" -j "$JOBS" "${common[@]}" \
  >"$W/local.log" 2>&1
rc_local=$?
s_local=$(python3 -c "import sys,time; print(f'{time.time() - float(sys.argv[1]):.1f}')" "$t")
say "local engine: exit $rc_local in $s_local s for $n submissions (-j $JOBS); $(grep -E '^grade-class: no GPU' "$W/local.log" | head -1)"

# 2. --engine slurm: tasks of SHARD submissions, one GPU each (the engine's default --gres=gpu:1),
# JOBS judges at once in a task (--cpus-per-task).
t=$(date +%s.%N)
timeout "$LIMIT" python3 instructor/batch/grade-class "$W/subs" --out "$W/slurm-out" "${lab_arg[@]}" "${common[@]}" \
  --engine slurm --slurm-poll 1 --slurm-shard "$SHARD" --slurm-arg=--cpus-per-task="$JOBS" >"$W/slurm.log" 2>&1
rc_slurm=$?
s_slurm=$(python3 -c "import sys,time; print(f'{time.time() - float(sys.argv[1]):.1f}')" "$t")
say "--engine slurm: exit $rc_slurm in $s_slurm s for $n submissions (--slurm-shard $SHARD, --cpus-per-task=$JOBS, gres gpu:1)"
grep -E "^slurm: (submitted|task)" "$W/slurm.log" | head -n 6 | tee -a "$S"
python3 bench/slurm_gpu_class.py compare "$W/local" "$W/slurm-out" --md "$out/table.md" --secs "$s_local" "$s_slurm" >/dev/null
rc_cmp=$?
cat "$out/table.md" >>"$S"
[[ $rc_local == "$rc_slurm" ]] || { say "the engines' exit statuses differ: local $rc_local, slurm $rc_slurm"; rc_cmp=1; }

# 3. A node whose GPU cannot be used: the task prolog hands the task a GPU CUDA cannot open.
# One submission (lab 01's solution, or the first there is), --slurm-retries 1: it must be
# submitted again once, then reported not graded (blank in lms.csv), grade-class exiting 4.
one=$(ls "$W"/subs/solved/01_*.cu 2>/dev/null | head -1); [[ -n $one ]] || one=$(ls "$W"/subs/solved/*.cu | head -1)
mkdir -p "$W/broken-subs/ada"; cp "$one" "$W/broken-subs/ada/"; chmod -R a+rX "$W/broken-subs"
touch "$W/slurm/break-gpu"
t=$(date +%s)
timeout "${BROKEN_LIMIT:-120}" python3 instructor/batch/grade-class "$W/broken-subs" --out "$W/broken" "${lab_arg[@]}" --tier all --graded \
  --judge "$J" --timeout 300 --engine slurm --slurm-poll 1 --slurm-retries 1 >"$W/broken.log" 2>&1
rc_broken=$?
rm -f "$W/slurm/break-gpu"
python3 - "$W/broken" "$rc_broken" "$W/broken.log" <<'PY' | tee -a "$S"
import csv, sys
from pathlib import Path
out, rc, log = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3]).read_text(errors="replace")
st = list(csv.DictReader(open(out / "slurm" / "status.csv")))
lms = [r for r in csv.DictReader(open(out / "lms.csv")) if r.get("Student") == "ada"]
book = list(csv.DictReader(open(out / "gradebook.csv")))
pts = [k for k in (book[0] if book else {}) if k.startswith("lab") and k.endswith(")")]
done = [k for k in (book[0] if book else {}) if k.endswith(" complete")]
col = [k for k in (lms[0] if lms else {}) if k.startswith("banklab lab")]
checks = {
    "grade-class exits 4 (not graded)": rc == 4,
    "the task was submitted again": "submitting it again" in log,
    "status.csv: not graded": [r["status"] for r in st] == ["not graded"],
    "gradebook: blank, not graded": bool(pts) and all(book[0][k] == "" for k in pts)
                                     and all(book[0][k] == "not graded" for k in done),
    "lms.csv: blank": bool(col) and all(lms[0][c] == "" for c in col),
}
why = st[0]["why"] if st else "no status.csv"
print(f"broken GPU (exit {rc}): " + "; ".join(f"{k}: {'yes' if v else 'NO'}" for k, v in checks.items()))
print(f"  why: {why[:300]}")
sys.exit(0 if all(checks.values()) else 1)
PY
rc_b=${PIPESTATUS[0]}
say "broken GPU check in $(( $(date +%s) - t )) s: $([[ $rc_b == 0 ]] && echo OK || echo FAILED)"

tar -czf "$out/device_slurm_gpu.tar.gz" -C "$W" local/gradebook.csv local/lms.csv local/results slurm-out/gradebook.csv \
  slurm-out/lms.csv slurm-out/results slurm-out/slurm broken/slurm local.log slurm.log broken.log slurm/log slurm/slurm.conf \
  slurm/gres.conf 2>/dev/null
rc=0; [[ $rc_cmp == 0 && $rc_b == 0 ]] || rc=1
say "all in $(( $(date +%s) - t0 )) s (exit $rc)"
exit $rc
