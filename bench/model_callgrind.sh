#!/usr/bin/env bash
# Instructions per access of the model under valgrind's callgrind: a figure that does not depend
# on what else the machine runs. For each pool, width and op, runs model_instructions with N and
# 2N accesses over model_bench's pools and prints (Ir(2N) - Ir(N)) / N.
#   bench/model_callgrind.sh build/dev/bench/model_instructions [count|summarize|analyze] [N] [POOL...]
# POOL: mixed, realistic, random, conflict-free (default: all four; see model_pool.hpp).
set -euo pipefail
exe=${1:?usage: $0 path/to/model_instructions [count|summarize|analyze] [N] [mixed|realistic|random|conflict-free ...]}
fn=${2:-count}
n=${3:-32768}
shift $(( $# < 3 ? $# : 3 ))
pools=("$@")
[ ${#pools[@]} -gt 0 ] || pools=(mixed realistic random conflict-free)
command -v valgrind >/dev/null || { echo "model_callgrind.sh: valgrind not found (Debian: valgrind)" >&2; exit 2; }
ir() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
for pool in "${pools[@]}"; do
  for width in 4 8 16; do
    for op in ld st; do
      a=$(ir "$exe" "$fn" "$width" "$op" "$n" "$pool")
      b=$(ir "$exe" "$fn" "$width" "$op" $((2 * n)) "$pool")
      echo "$fn $pool $op width $width: $(( (b - a) / n )) instructions per access"
    done
  done
done
