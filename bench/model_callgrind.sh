#!/usr/bin/env bash
# Instructions per access of the model under valgrind's callgrind: a figure that does not depend
# on what else the machine runs. For each width and op, runs model_instructions with N and 2N
# accesses over model_bench's pool and prints (Ir(2N) - Ir(N)) / N.
#   bench/model_callgrind.sh build/dev/bench/model_instructions [count|summarize|analyze] [N]
set -euo pipefail
exe=${1:?usage: $0 path/to/model_instructions [count|summarize|analyze] [N]}
fn=${2:-count}
n=${3:-32768}
command -v valgrind >/dev/null || { echo "model_callgrind.sh: valgrind not found (Debian: valgrind)" >&2; exit 2; }
ir() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
for width in 4 8 16; do
  for op in ld st; do
    a=$(ir "$exe" "$fn" "$width" "$op" "$n")
    b=$(ir "$exe" "$fn" "$width" "$op" $((2 * n)))
    echo "$fn $op width $width: $(( (b - a) / n )) instructions per access"
  done
done
