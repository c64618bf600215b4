#!/usr/bin/env bash
# On the GPU machine, the whole grader as it lands (issues 14, 15, 16), in two parts so each fits
# one device call (the build stays in /tmp/fin while the machine is warm):
#   bench/experiments/grader_landing/device_final.sh grades   build; every lab's solution, stub and conflicted kernel (all
#                                  tiers, graded) -> points with the GPU tier; the sandbox as
#                                  root and nobody; grade-class -j 2 and grade-platform on GPU
#   bench/experiments/grader_landing/device_final.sh cases    the selftest cases the GPU tier judges (alternatives, GPU cheats,
#                                  known-bad kernels whose defect only a GPU test sees)
# Logs go to $OUT (or ./out) as one tarball plus a summary.
set -uo pipefail
part=${1:-grades}
out=${OUT:-$PWD/out}; mkdir -p "$out"
src=$(cd "$(dirname "$0")/../../.." && pwd)
T=/tmp/fin/tree; b=$T/build/gpu; J=$b/grader/banklab-judge
if [[ ! -x $J ]]; then
  rm -rf /tmp/fin && mkdir -p $T && tar -C "$src" --exclude=./build -cf - . | tar -C $T -xf - && chmod -R a+rX /tmp/fin   # not build/: its CMakeCache names another tree
  cmake -S $T -B $b -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DBANKLAB_GRADED=ON >/tmp/fin/configure.log 2>&1 || { tail -30 /tmp/fin/configure.log; exit 1; }
  cmake --build $b --target banklab_judge banklab -j 16 >/tmp/fin/build.log 2>&1 || { grep -B2 -A8 error /tmp/fin/build.log | head -60; exit 1; }
  chmod -R a+rX /tmp/fin
fi
cd $T
W=/tmp/fin/w; mkdir -p $W && chmod 777 $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if [[ $part == grades ]]; then
  echo "root:   $($J sandbox)"; echo "nobody: $(runuser -u nobody -- $J sandbox)"
  G=$W/gpu-verdicts; mkdir -p $G
  while read -r n l <&3; do   # the labs, "NN NN_name" a line (python/banklab/lab/labs.py list)
    python3 - "$l" > $W/conflicted-$n.cu <<'PY'
import importlib.util, importlib.machinery, sys
loader = importlib.machinery.SourceFileLoader("po", "instructor/batch/points-outcomes")
spec = importlib.util.spec_from_loader("po", loader); m = importlib.util.module_from_spec(spec); loader.exec_module(m)
sys.stdout.write(m.conflicted_source(sys.argv[1]))
PY
    for k in solution stub conflicted; do
      case $k in solution) s=solutions/$l/kernel.cu;; stub) s=labs/$l/kernel.cu;; conflicted) s=$W/conflicted-$n.cu;; esac
      $J grade --lab $n --source $s --work $W/$k-$n --json $G/lab${n}_$k.json --tier all --graded >$W/$k-$n.log 2>&1
      echo "$k $l: $(tail -1 $W/$k-$n.log)"
      [[ $k == solution ]] && grep -E "FAILED|SKIPPED" $W/$k-$n.log | head -5 | sed 's/^/   /'
    done
  done 3< <(python3 python/banklab_run.py -m banklab.lab.labs list)
  python3 instructor/batch/points-outcomes --judge $J --gpu-verdicts $G 2>&1 | tee $W/points.txt | tail -40
  # grade-class -j 2 on the GPU: a class of six, as root, then the same class as nobody
  C=$W/class; mkdir -p "$C/ann lee" "$C/bo" "$C/cy" "$C/dee" "$C/ed" "$C/fay"
  cp solutions/04_padding/kernel.cu "$C/ann lee/kernel.cu"
  python3 grader/selftest/materialize.py --case solutions/04_padding/cases/alternatives/thirty_two_by_sixteen_blocks.patch --lab-dir solutions/04_padding --out "$C/bo/kernel.cu" >/dev/null
  cp labs/04_padding/kernel.cu "$C/cy/kernel.cu"
  python3 grader/selftest/materialize.py --case solutions/04_padding/cases/cheats/kernel_bypasses_access_functions_04.patch --lab-dir labs/04_padding --out "$C/dee/kernel.cu" >/dev/null
  python3 grader/selftest/materialize.py --case grader/selftest/cheats/deep_process_chain_outlives_probe.cu --lab-dir labs/04_padding --out "$C/ed/kernel.cu" >/dev/null
  cp $W/conflicted-04.cu "$C/fay/kernel.cu"
  chmod -R a+rwX $C
  python3 instructor/batch/grade-class "$C" --out $W/gc-root --lab 04 -j 2 --tier all --graded --judge $J --quiet >$W/gc-root.log 2>&1; echo "grade-class root rc=$?"
  runuser -u nobody -- python3 instructor/batch/grade-class "$C" --out $W/gc-nobody --lab 04 -j 2 --tier all --graded --judge $J --quiet >$W/gc-nobody.log 2>&1; echo "grade-class nobody rc=$?"
  for g in $W/gc-root $W/gc-nobody; do echo "== $g"; cat $g/gradebook.csv 2>/dev/null | cut -c1-200; done
  ps -eo user,pid,comm | grep -i surviv && echo "SURVIVOR FOUND" || echo "no survivor"
  # grade-platform (Gradescope layout) with the GPU tier, root and nobody
  for who in root nobody; do
    R=$W/gs-$who; mkdir -p $R/submission; cp labs/06_ldmatrix/kernel.cu $R/submission/kernel.cu; chmod -R a+rwX $R
    run=(); [[ $who == nobody ]] && run=(runuser -u nobody --)
    BANKLAB_JUDGE=$J "${run[@]}" python3 instructor/platforms/grade-platform gradescope --root $R --lab 06 --tier all --graded >$R.log 2>&1
    echo "grade-platform gradescope $who rc=$? score: $(python3 -c "import json,sys;d=json.load(open('$R/results/results.json'));print(d.get('score'),'/',sum(t.get('max_score',0) for t in d['tests']))" 2>&1)"
  done
else
  cases=()
  for f in solutions/*/cases/alternatives/*.patch; do cases+=(--case "$f"); done
  for f in $(grep -l "^// TIER: gpu" grader/selftest/cheats/*.cu); do cases+=(--case "$f"); done
  for f in $(grep -l "EXPECT_FAIL: Lab[0-9]*OnGpu" solutions/*/cases/bad/*.patch); do cases+=(--case "$f"); done
  echo "${#cases[@]} case arguments"
  timeout 520 python3 grader/selftest/run_cases.py --judge $J --gpu --tier all --work $W/cases "${cases[@]}" 2>&1 | tee $W/cases.log | grep -v "^OK" | cut -c1-400
  grep -c "^OK" $W/cases.log
fi
tar czf "$out/final-$part.tgz" -C $W --exclude='*/work' --exclude='cases/*/*/src' . 2>/dev/null
ls -la "$out"
