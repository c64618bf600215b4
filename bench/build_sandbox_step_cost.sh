#!/usr/bin/env bash
# Builds bench/sandbox_step_cost.cpp against one judge tree and its configured build folder (whose
# banklab_judge target is built): bench/build_sandbox_step_cost.sh TREE BUILD_DIR OUTPUT
set -euo pipefail
tree=$1 build=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
c++ -O1 -std=c++17 -I"$tree/grader/judge" -I"$build/grader/generated" -I"$tree/grader/include" \
  -I"$tree/common/include" -isystem /usr/local/cuda/include -c "$here/sandbox_step_cost.cpp" -o "$out.o"
c++ "$out.o" -o "$out" -L/usr/local/cuda/targets/x86_64-linux/lib -Wl,-rpath,/usr/local/cuda/lib \
  "$build/grader/libbanklab_judge_core.a" "$build/grader/libbanklab_grader.a" /usr/local/cuda/lib/libcudart.so \
  "$build/common/libbanklab_model.a" /usr/lib/x86_64-linux-gnu/libgtest.a -lcudadevrt -lcudart_static -lrt -lpthread -ldl
rm -f "$out.o"
