"""Every Nsight Compute metric that counts shared-memory work, from `ncu --query-metrics`:
    python3 bench/ncu_shared_metrics.py METRICS_FILE   ->  "a.sum,b.sum,..." (file order)
The device scripts that measure instruction families (trace_model_device.sh, experiments/shared_atomics/atomics_device.sh)
profile with all of them."""
import re
import sys

PATTERN = re.compile(
    r"^(l1tex__data_pipe_lsu_wavefronts_mem_shared\S*|l1tex__data_bank_conflicts_pipe_lsu_mem_shared\S*|"
    r"smsp__inst_executed_op_(shared|ldsm|stsm|ldgsts|atom|red)\S*|smsp__sass_inst_executed_op_(shared|ldsm|stsm|ldgsts|atom)\S*|"
    r"l1tex__data_pipe_lsu_wavefronts\S*|smsp__sass_inst_executed_op_global_red\S*)$")

names = []
for line in open(sys.argv[1]):
    f = line.split()
    if f and PATTERN.match(f[0]) and f[0] not in names:
        names.append(f[0])
print(",".join(n + ".sum" for n in names))
