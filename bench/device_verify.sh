#!/usr/bin/env bash
# The whole GPU tier on the GPU at hand, in one go:
#   1. selftest build (solutions + the selftest suites): every GPU test of every solution, under
#      compute-sanitizer (memcheck, racecheck) and ncu when present; then every selftest case
#      (stubs, known-bad kernels and cheats must fail, valid alternatives must pass, GPU tier
#      included);
#   2. the stubs' GPU tier (labs/): correctness must pass; the traced test must fail.
# Logs go to $OUT (or ./device-logs). Exit status 0 when all verdicts are as expected.
#   bench/device_verify.sh [tiers|selftest|all] [ctest -R regex for the selftest cases]
# (one machine call may not fit both halves: "tiers" runs the GPU tier of solutions and stubs,
# "selftest" the selftest cases)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
logs=${OUT:-$root/device-logs}
mkdir -p "$logs"
export PATH=$PATH:/usr/local/cuda/bin
jobs=$(nproc)
cd "$root"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$logs/gpu.txt"

cmake -S . -B build/st -G Ninja -DBANKLAB_GRADE=solutions -DBANKLAB_SELFTEST=ON >"$logs/st_cfg.log" 2>&1 || { tail -30 "$logs/st_cfg.log"; exit 1; }
cmake --build build/st --target all selftest_targets -j "$jobs" >"$logs/st_build.log" 2>&1 || { tail -40 "$logs/st_build.log"; exit 1; }
cmake -S . -B build/dev -G Ninja -DBANKLAB_GRADE=labs >"$logs/dev_cfg.log" 2>&1 || { tail -30 "$logs/dev_cfg.log"; exit 1; }
cmake --build build/dev --target banklab_judge banklab -j "$jobs" >"$logs/dev_build.log" 2>&1 || { tail -40 "$logs/dev_build.log"; exit 1; }

ok=0
step=${1:-all}
if [[ $step != selftest ]]; then
echo "== solutions: GPU tier (label gpu: tests, sanitize, ncu)"
ctest --test-dir build/st -L gpu --output-on-failure >"$logs/st_gpu.log" 2>&1 || ok=1
grep -E "tests passed|Failed|Not Run|\(Timeout\)|Skipped" "$logs/st_gpu.log" | tail -25
fi
if [[ $step != tiers ]]; then
echo "== selftest: stubs, known-bad kernels and cheats must fail; alternatives must pass"
ctest --test-dir build/st -L selftest ${2:+-R "$2"} --output-on-failure >"$logs/st_self.log" 2>&1 || ok=1
grep -E "tests passed|Failed|Skipped|\(Timeout\)" "$logs/st_self.log" | tail -60
fi
if [[ $step != selftest ]]; then
echo "== stubs: GPU tier (correctness must pass, the traced test must fail)"
ctest --test-dir build/dev -L gpu --output-on-failure >"$logs/dev_gpu.log" 2>&1
grep -E "tests passed" "$logs/dev_gpu.log"
bad_correct=$(grep -cE "Test +#[0-9]+: lab0[0-5]\.Lab0[0-5]OnGpu\.[A-Za-z0-9]*Correct[A-Za-z0-9]* .*Failed" "$logs/dev_gpu.log")
traced_passed=$(grep -cE "Test +#[0-9]+: lab0[0-5]\.Lab0[0-5]OnGpu\.Traced[A-Za-z0-9]* .*Passed" "$logs/dev_gpu.log")
echo "stub correctness failures: $bad_correct (want 0); stub traced tests passed: $traced_passed (want 0)"
grep -E "^\[ TIMING   \].*" "$logs/dev_gpu.log" | head -40
[[ $bad_correct -eq 0 && $traced_passed -eq 0 ]] || ok=1
fi
echo "device_verify: $([[ $ok -eq 0 ]] && echo 'all verdicts as expected' || echo 'SOME VERDICTS ARE WRONG')"
exit $ok
