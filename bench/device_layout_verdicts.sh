#!/usr/bin/env bash
# Issue 22 on the GPU machine: a change of the judge grades every submission as before.
#   bench/device_layout_verdicts.sh build     builds the judge of this tree and, when .carry/base holds
#                                             an older tree (`git archive <commit>` unpacked there), of that one
#   bench/device_layout_verdicts.sh plain     every lab's stub (both judges) and solution (this one), GPU tier
#   bench/device_layout_verdicts.sh cases     the valid alternatives and the GPU known-bad cases (this judge)
#   bench/device_layout_verdicts.sh cheats    the cheats that need the GPU tier (`// TIER: gpu`, this judge)
#   ... plain|cases|cheats 06 07               only those labs (every lab without a number)
# Writes the grades' JSON under $OUT (base/, new/) and a log; compare the verdicts on the other machine.
set -uo pipefail
out=${OUT:-$PWD/out}; mkdir -p "$out/base" "$out/new"
W=$PWD/build/layout; mkdir -p $W   # in the tree: kept between calls while the machine is warm
if [[ -x .carry/bwrap/bwrap && ! -x /usr/local/bin/bwrap ]]; then cp .carry/bwrap/bwrap /usr/local/bin/bwrap; chmod 755 /usr/local/bin/bwrap; fi
bld() {  # tree, where
  mkdir -p "$2"; tar -C "$1" --exclude=./build --exclude=./.carry -cf - . | tar -C "$2" -xf -; chmod -R a+rX "$2"
  cmake -S "$2" -B "$2/b" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$PWD/.carry/cli11" >"$2.cfg" 2>&1 &&
    cmake --build "$2/b" --target banklab_judge -j 8 >"$2.log" 2>&1 || { tail -n 30 "$2.cfg" "$2.log"; return 1; }
}
mode=${1:-}; shift; only=("$@")   # the labs to grade (all without any)
labs() { python3 python/banklab_run.py -m banklab.lab.labs list | while read -r n f; do
  [[ ${#only[@]} -eq 0 || " ${only[*]} " == *" $n "* ]] && echo "$n $f"; done; }
lab_args=(); for n in "${only[@]}"; do lab_args+=(--lab "$n"); done
case "$mode" in
  build)
    t0=$(date +%s); [[ -d .carry/base ]] && bld .carry/base $W/base & bld . $W/new & wait
    echo "built the judge(s) in $(( $(date +%s) - t0 )) s"; nvidia-smi --query-gpu=name --format=csv,noheader
    ls -la $W/*/b/grader/banklab-judge ;;
  plain)
    labs | while read -r n f; do
      for k in base new; do
        [[ -x $W/$k/b/grader/banklab-judge ]] || continue
        $W/$k/b/grader/banklab-judge grade --lab $n --source $W/$k/labs/$f/kernel.cu --work $W/w-$k-stub-$n \
          --json "$out/$k/stub_$n.json" --tier gpu > "$out/$k/stub_$n.log" 2>&1; echo "$k stub $n: $(tail -1 "$out/$k/stub_$n.log")"
      done
      $W/new/b/grader/banklab-judge grade --lab $n --source $W/new/solutions/$f/kernel.cu --work $W/w-new-sol-$n \
        --json "$out/new/solution_$n.json" --tier gpu > "$out/new/solution_$n.log" 2>&1; echo "new solution $n: $(tail -1 "$out/new/solution_$n.log")"
    done ;;
  cases)
    cd $W/new
    args=(); for f in solutions/*/cases/alternatives/*.patch; do args+=(--case "$f"); done
    for f in $(grep -l "EXPECT_FAIL: Lab[0-9]*OnGpu" solutions/*/cases/bad/*.patch); do args+=(--case "$f"); done
    python3 grader/selftest/run_cases.py --judge b/grader/banklab-judge --tier gpu --gpu --work $W/cases "${lab_args[@]}" "${args[@]}" \
      > "$out/new/cases.txt" 2>&1; tail -45 "$out/new/cases.txt" ;;
  cheats)
    cd $W/new
    args=(); for f in $(grep -l "^// TIER: gpu" solutions/*/cases/cheats/*.cu solutions/*/cases/cheats/*.patch grader/selftest/cheats/*.cu); do args+=(--case "$f"); done
    python3 grader/selftest/run_cases.py --judge b/grader/banklab-judge --kind cheat --tier gpu --gpu --work $W/cheats "${lab_args[@]}" "${args[@]}" \
      > "$out/new/cheats.txt" 2>&1; tail -45 "$out/new/cheats.txt" ;;
  *) sed -n 2,9p "$0"; exit 2 ;;
esac
