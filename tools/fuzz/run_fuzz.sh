#!/usr/bin/env bash
# Fuzz the banklab line parser, model, expression evaluator and renderers with libFuzzer.
#   tools/fuzz/run_fuzz.sh [SECONDS] [extra libFuzzer flags...]      (default 180 s)
# Builds with clang++ directly (no CMake build needed) into build/fuzz/, starts from the seeds
# in tools/fuzz/regressions/ and writes any crash, leak, timeout or out-of-memory input there
# (crash-*, timeout-*, ...): the CTest label `fuzz` replays every file of that folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-180}
shift || true
out=${BANKLAB_FUZZ_OUT:-$root/build/fuzz}
cxx=${CXX_FUZZ:-clang++}
mkdir -p "$out/corpus"

"$cxx" -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root/common/include" -I"$root/tools/lib/include" \
  "$root/tools/fuzz/fuzz_target.cpp" \
  "$root"/tools/lib/src/{expr,explain_render,svg,predict,compare}.cpp \
  "$root"/common/src/{model,pattern_io,describe}.cpp \
  -o "$out/banklab_fuzz"

# -timeout: one input taking longer than 5 s is a hang; -rss_limit_mb: an input needing more
# memory than that is a bug too. New interesting inputs go to build/fuzz/corpus (not committed).
"$out/banklab_fuzz" -max_total_time="$secs" -timeout=5 -rss_limit_mb=2048 -max_len=4096 \
  -print_final_stats=1 -artifact_prefix="$root/tools/fuzz/regressions/" "$@" \
  "$out/corpus" "$root/tools/fuzz/regressions"
