"""Per kernel and op: `banklab trace` (JSON report), Nsight Compute's instruction-level counts
(sm__sass_l1tex_*: ncu's own cost of each executed instruction, from SASS patching) and its
hardware counters (l1tex__data_pipe_lsu_wavefronts_mem_shared*), summed over the kernel's launches.
    python3 bench/trace_vs_sass.py TRACE.json NCU.csv"""
import csv
import json
import sys
from collections import defaultdict

SASS = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_"
HW = "l1tex__data_pipe_lsu_wavefronts_mem_shared"
# op: (trace JSON field, ncu instruction-level metrics, ncu hardware metrics)
OPS = [("ld+ldsm", "load_wavefronts", [SASS + "ld", SASS + "ldsm"], [HW + "_op_ld"]),
       ("st+stsm", "store_wavefronts", [SASS + "st", SASS + "stsm"], [HW + "_op_st"]),
       ("ldgsts", "async_copy_wavefronts", [SASS + "ldgsts"], []),
       ("atom", "atomic_wavefronts", [SASS + "atom"], [HW + "_op_atom"]),
       ("gmma", "wgmma_wavefronts", [SASS + "gmma"], [HW + "_op_gmma"]),
       ("total", "wavefronts", ["sm__sass_l1tex_pipe_lsu_wavefronts_mem_shared"], [HW])]


def main():
    trace = {k["kernel"]: k for k in json.load(open(sys.argv[1]))["kernels"]}
    ncu = defaultdict(lambda: defaultdict(float))
    lines = [l for l in open(sys.argv[2], errors="replace") if l.startswith('"')]
    for r in csv.DictReader(lines):
        try:
            ncu[r["Kernel Name"]][r["Metric Name"].removesuffix(".sum")] += float(r["Metric Value"].replace(",", ""))
        except ValueError:
            pass
    for kernel, t in trace.items():
        n = next((v for k, v in ncu.items() if k == kernel or k.startswith(kernel[:60])), None)
        if n is None:
            print(f"{kernel[:70]}: not in ncu's CSV")
            continue
        print(kernel[:90])
        misc = n[HW + "_op_misc"]
        for name, field, sass, hw in OPS:
            tv = t.get(field, 0)
            sv = sum(n[m] for m in sass)
            hv = sum(n[m] for m in hw) if hw else n[HW] - sum(n[HW + o] for o in ("_op_ld", "_op_st", "_op_atom", "_op_misc", "_op_gmma", "_op_ipa"))
            if tv or sv or hv:
                mark = "equal" if tv == sv else f"trace - ncu instruction-level = {tv - sv:+.0f}"
                print(f"  {name:8} trace {tv:>10.0f}  ncu instruction-level {sv:>10.0f}  ncu hardware {hv:>10.0f}   {mark}")
        print(f"  (ncu hardware op_misc {misc:.0f}: mbarriers and other work no instruction-level counter has)")


if __name__ == "__main__":
    main()
