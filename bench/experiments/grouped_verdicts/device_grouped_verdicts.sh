#!/usr/bin/env bash
# Issue 33 on the GPU machine: grade runs a lab's tests in as few processes as isolation allows
# (the CPU tests in one, the untraced GPU tests in one, the traced ones in one); each test's
# verdict must be the one it gets in a process of its own (BANKLAB_JUDGE_ONE_TEST_PER_PROCESS=1).
#   bash bench/experiments/grouped_verdicts/device_grouped_verdicts.sh            build the judge, then every lab's stub and
#                                                    solution --tier gpu --graded in both layouts,
#                                                    then the isolation cases while 420 s allow
#   BUDGET_S=600 bash bench/experiments/grouped_verdicts/device_grouped_verdicts.sh 05 07    only those labs, a longer budget
# Prints both verdict lists of every file, every difference (FLIP: a status or a check count;
# MESSAGE: the words, numbers aside), the seconds of each grade (and after its build) and how many
# test processes each ran; writes $OUT/summary.txt, $OUT/grouped/, $OUT/alone/ (bench/experiments/grouped_verdicts/grouped_verdicts.py).
# Needs: nvcc, cmake, Ninja, GoogleTest, CLI11 (.carry/cli11), bubblewrap (.carry/bwrap/bwrap).
set -uo pipefail
out=${OUT:-$PWD/out}; mkdir -p "$out"
t0=$(date +%s)
if [[ -x .carry/bwrap/bwrap && ! -x /usr/local/bin/bwrap ]]; then cp .carry/bwrap/bwrap /usr/local/bin/bwrap; chmod 755 /usr/local/bin/bwrap; fi
chmod -R a+rX labs solutions grader common instructor 2>/dev/null   # read by the sandbox's uid
B=$PWD/build/grouped   # in the tree: kept between calls while the machine is warm
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_PREFIX_PATH="$PWD/.carry/cli11" > "$out/configure.log" 2>&1 &&
  cmake --build "$B" --target banklab_judge -j 16 > "$out/build.log" 2>&1 ||
  { tail -n 30 "$out/configure.log" "$out/build.log"; exit 1; }
echo "built the judge in $(( $(date +%s) - t0 )) s; $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nvidia-smi -L | wc -l) GPU(s)"
"$B/grader/banklab-judge" sandbox | cut -c1-160
labs=(); for n in "$@"; do labs+=(--lab "$n"); done
budget=$(( ${BUDGET_S:-420} - ($(date +%s) - t0) ))
python3 bench/experiments/grouped_verdicts/grouped_verdicts.py --judge "$B/grader/banklab-judge" --out "$out" --work "$B/work" \
  --tier gpu --graded --cases --budget-s "$budget" "${labs[@]}"
rc=$?
echo "all in $(( $(date +%s) - t0 )) s"
exit $rc
