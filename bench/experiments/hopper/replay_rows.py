"""Summarises bench/experiments/hopper/replay.sh: per list and way of running, the instructions replayed, what
the tracer charged them and what Nsight Compute counted, alone and with many warps at once.
    python3 bench/experiments/hopper/replay_rows.py LIST_DIR RUN_DIR
Wavefronts of a launch: `_op_ld` for LDS, `_op_st` for STS, and for cp.async the shared total less
every op counter (LDGSTS has none of its own; as in common/data/README.md). Per warp instruction:
that over blocks x warps x repetitions. "weighted": each pattern times its count in the kernel. A
pair (way "pair-...") is one launch of two patterns: each line is read from its own counter."""
import csv
import os
import sys
from collections import defaultdict

W = "l1tex__data_pipe_lsu_wavefronts_mem_shared"
OPS = ["_op_ld", "_op_st", "_op_atom", "_op_misc", "_op_gmma", "_op_ipa"]
INST = {"ld": "smsp__sass_inst_executed_op_shared_ld.sum", "st": "smsp__sass_inst_executed_op_shared_st.sum",
        "cp": "smsp__sass_inst_executed_op_ldgsts.sum"}

SASS = {"ld": "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "st": "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "cp": "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum"}


def ncu_rows(path):
    by_id = defaultdict(dict)
    if not os.path.exists(path):
        return by_id
    lines = [l for l in open(path, errors="replace") if l.startswith('"')]
    for row in csv.DictReader(lines):
        try:
            by_id[int(row["ID"])][row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
        except (KeyError, ValueError):
            pass
    return by_id


def main():
    run = sys.argv[2]
    names = sorted({f[:-9] for f in os.listdir(run) if f.endswith(".launches")})
    for name in names:
        m = ncu_rows(os.path.join(run, name + ".csv"))
        groups = defaultdict(list)
        for line in open(os.path.join(run, name + ".launches")):
            n, pid, pc, count, traced, op, width, way, blocks, warps, reps = line.split()
            n, count, traced = int(n), int(count), int(traced)
            warps_all = int(blocks) * int(warps) * int(reps)
            v = m.get(n)
            if not v:
                continue
            kind = (way[5:] if way.startswith("pair-") else way).split("@")[0]  # a pair: each line its own counter
            if kind == "ld":
                wf, inst = v[W + "_op_ld.sum"], v[INST["ld"]]
            elif kind == "st":
                wf, inst = v[W + "_op_st.sum"], v[INST["st"]]
            else:
                wf = v[W + ".sum"] - sum(v[W + o + ".sum"] for o in OPS)
                inst = v[INST["cp"]]
            # ncu's instruction-level count (SASS patching), where the run collected it
            sass = v.get(SASS[kind if kind in ("ld", "st") else "cp"])
            groups[(way, blocks, warps, reps)].append(
                (int(pid), pc, count, traced, wf / warps_all, inst / warps_all, width,
                 None if sass is None else sass / warps_all))
        for (way, blocks, warps, reps), rows in groups.items():
            cnt = sum(r[2] for r in rows)
            tr = sum(r[2] * r[3] for r in rows)
            me = sum(r[2] * r[4] for r in rows)
            diff = [r for r in rows if abs(r[4] - r[3]) > 1e-9]
            odd_inst = [r for r in rows if abs(r[5] - 1) > 1e-9]
            print(f"{name} {way} {blocks}x{warps} warps x{reps}: {len(rows)} patterns, {cnt} of the kernel's "
                  f"instructions; weighted traced {tr}, ncu {me:.1f} ({(me - tr) / tr * 100 if tr else 0:+.2f} %); "
                  f"{len(diff)} patterns differ; {len(odd_inst)} with instructions != 1 a warp"
                  + ("" if any(r[7] is None for r in rows) else
                     f"; ncu instruction-level (sm__sass_*) {sum(r[2] * r[7] for r in rows):.1f}"))
            for r in sorted(diff, key=lambda r: -r[2] * abs(r[4] - r[3]))[:6]:
                print(f"    id {r[0]} pc {r[1]} x{r[2]} width {r[6]}: traced {r[3]}, ncu {r[4]:.3f} a warp instruction")
            if odd_inst:
                print(f"    instructions a warp: {sorted(set(round(r[5], 3) for r in odd_inst))[:6]}")


if __name__ == "__main__":
    main()
