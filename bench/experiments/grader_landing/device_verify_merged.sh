#!/usr/bin/env bash
# On the GPU machine, in one call: the merged grader of issue 21 (confinement modes, fresh
# modules, both passes' preprocessing) as it lands. Builds the judge, then at once:
#   - the sandbox's mode as root, as nobody, and as root without bubblewrap (uid mode);
#   - every lab's solution and stub, all tiers, graded (bubblewrap mode), and lab 04's solution
#     in uid mode (BANKLAB_BWRAP=/bin/false): the GPU tier on a fatbin built by the leased uid;
#   - the selftest cases the GPU tier judges that the GPU helper's run did not cover (labs 00,
#     01, 02, 05; the cheats whose host and device texts differ; the new host-only alternative).
# Four judges at a time; the per-GPU lock serialises timed and traced tests. Logs to $OUT.
set -uo pipefail
out=${OUT:-$PWD/out}; mkdir -p "$out"
src=$(cd "$(dirname "$0")/../../.." && pwd)
T=/tmp/vm/tree; b=$T/build/gpu; J=$b/grader/banklab-judge
t0=$(date +%s)
if [[ ! -x $J ]]; then
  rm -rf /tmp/vm && mkdir -p $T && tar -C "$src" --exclude=./build -cf - . | tar -C $T -xf - && chmod -R a+rX /tmp/vm
  cmake -S $T -B $b -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 >/tmp/vm/configure.log 2>&1 || { tail -30 /tmp/vm/configure.log; exit 1; }
  cmake --build $b --target banklab_judge banklab -j 16 >/tmp/vm/build.log 2>&1 || { grep -B2 -A8 error /tmp/vm/build.log | head -60; exit 1; }
  chmod -R a+rX /tmp/vm
fi
S=$out/summary.txt; : > $S
echo "build: $(( $(date +%s) - t0 )) s" | tee -a $S
cd $T
W=/tmp/vm/w; mkdir -p $W && chmod 777 $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
{ echo "root:        $($J sandbox | head -1)"; echo "nobody:      $(runuser -u nobody -- $J sandbox | head -1)"
  echo "root, no bwrap: $(BANKLAB_BWRAP=/bin/false $J sandbox | head -1)"; } | tee -a $S
L=${LIMIT:-400}
grade() {  # name lab source [env...]
  local k=$1 n=$2 s=$3; shift 3
  ( s0=$(date +%s); env "$@" timeout $L $J grade --lab $n --source $s --work $W/$k --json $W/$k.json --tier all --graded >$W/$k.log 2>&1
    echo "$k: $(tail -1 $W/$k.log) ($(( $(date +%s) - s0 )) s)" >> $S
    grep -E "FAILED|SKIPPED" $W/$k.log | head -4 | cut -c1-300 | sed 's/^/   /' >> $S )
}
group() {  # name, then case files
  local g=$1; shift; local args=()
  for f in "$@"; do args+=(--case "$f"); done
  timeout $L python3 grader/selftest/run_cases.py --judge $J --gpu --tier all --work $W/cases-$g "${args[@]}" >$W/cases-$g.log 2>&1 || echo "group $g: rc $?" >> $S
  grep -E "^(OK|FAILED|SKIPPED)" $W/cases-$g.log | cut -c1-500 >> $S
}
C=grader/selftest/cheats; A=grader/selftest/alternatives; B=grader/selftest/bad
( while read -r n l; do grade sol-$n $n solutions/$l/kernel.cu; grade stub-$n $n labs/$l/kernel.cu; done \
    < <(python3 python/banklab_run.py -m banklab.lab.labs list)
  grade uid-sol-04 04 solutions/04_padding/kernel.cu BANKLAB_BWRAP=/bin/false ) &
group host $C/cuda_arch_host_differs_01.cu $C/cuda_arch_host_differs_05.cu $C/cuda_arch_host_differs_06.cu \
  $C/probe_swaps_the_device_code_05.cu $C/setenv_hides_gpu.cu $A/01_32way_conflict/*.patch &
group 05 $A/05_swizzle/*.patch $(grep -l "^// TIER: gpu" $C/*_05.cu | grep -v -e cuda_arch -e probe_swaps) &
group 012 $A/00_*/*.patch $A/02_*/*.patch $(grep -l "^// TIER: gpu" $C/*_0[012].cu | grep -v cuda_arch) \
  $(grep -l "EXPECT_FAIL: Lab0[0125]OnGpu" $B/*/*.patch) &
wait
echo "total: $(( $(date +%s) - t0 )) s" | tee -a $S
ps -eo user,pid,comm | grep -i -e surviv -e banklab-d && echo "SURVIVOR FOUND" >> $S || echo "no survivor" >> $S
cat $S
tar czf "$out/verify.tgz" -C $W --exclude='*/work' --exclude='*/src' . 2>/dev/null
