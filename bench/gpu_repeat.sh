#!/usr/bin/env bash
# Runs the whole GPU tier N times back to back (solutions and stubs) and reports any test whose
# verdict changed between runs.
#   bench/gpu_repeat.sh [N] [build-dir]     default N = 20; the build dir must hold banklab-judge
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-20}
b=${2:-$root/build/perf}
judge=$b/grader/banklab-judge
[[ -x $judge ]] || { echo "no judge at $judge: run bench/gpu_perf.sh first"; exit 1; }
tmp=$(mktemp -d)
for i in $(seq 1 "$n"); do
  for grade in solutions labs; do
    # the labs: banklab.lab.labs list, one "NN NN_name" line each (python/banklab/lab/labs.py)
    while read -r lab folder <&3; do
      "$judge" grade --lab "$lab" --source "$root/$grade/$folder/kernel.cu" --work "$tmp/w-$grade-$lab" \
        --json "$tmp/g.json" --tier gpu </dev/null >/dev/null 2>&1
      python3 -c "import json,sys; [print('$grade', v['test'], v['status']) for v in json.load(open('$tmp/g.json'))['verdicts'] if v['tier']=='gpu']" >>"$tmp/run$i"
    done 3< <(python3 "$root/python/banklab_run.py" -m banklab.lab.labs list "$root")
  done
  sort -o "$tmp/run$i" "$tmp/run$i"
done
flips=0
for i in $(seq 2 "$n"); do
  if ! diff -q "$tmp/run1" "$tmp/run$i" >/dev/null; then
    flips=$((flips + 1)); echo "run $i differs from run 1:"; diff "$tmp/run1" "$tmp/run$i"
  fi
done
echo "verdicts per run: $(wc -l <"$tmp/run1") tests; $(grep -c ' passed$' "$tmp/run1") passed, $(grep -c ' failed$' "$tmp/run1") failed"
cat "$tmp/run1"
echo "$n back-to-back runs: $flips run(s) with a changed verdict"
[[ $flips -eq 0 ]]
