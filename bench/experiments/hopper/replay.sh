#!/usr/bin/env bash
# Replays the warp instructions of cuBLAS's kernels (issue 24's table) one by one under Nsight
# Compute: does each cost, alone, what the tracer charged it, and does it cost the same when many
# warps run it at once? Lists: bench/experiments/hopper/replay_list.py over `banklab trace --format predict`
# of bench/cublas_gemms.cu (LIST_DIR/<kernel>_<op>.list).
#   [REPLAY_SECOND=1|2|3|4] bench/experiments/hopper/replay.sh LIST_DIR OUT_DIR   (the second or third set of runs, below)
# Writes OUT_DIR/replay.txt (bench/experiments/hopper/replay_rows.py) and OUT_DIR/raw.tgz (launch logs, ncu CSVs).
set -u
L=$(realpath "$1"); O=$(realpath -m "$2"); R=$O/r; mkdir -p "$R"
ROOT=$(cd "$(dirname "$0")/../../.." && pwd); cd "$ROOT"
T0=$(date +%s)
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2 | head -1; ncu --version | tail -1; date -u; } > "$R/versions.txt" 2>&1
cat "$R/versions.txt"
nvcc -O2 -arch=sm_90 -lineinfo -o "$R/replay" bench/experiments/hopper/replay.cu > "$R/build.log" 2>&1 || { cat "$R/build.log"; exit 1; }
# The SASS of the replay kernel: one shared-memory instruction per way and width.
cuobjdump -sass "$R/replay" | grep -oE "\b(LDGSTS|LDS|STS)(\.[A-Z0-9_]+)*" | sort | uniq -c | tee "$R/sass.txt"
W=l1tex__data_pipe_lsu_wavefronts_mem_shared
M=$W.sum,${W}_op_ld.sum,${W}_op_st.sum,${W}_op_atom.sum,${W}_op_misc.sum,${W}_op_gmma.sum,${W}_op_ipa.sum
M=$M,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_ldgsts.sum
# ncu's own instruction-level counts (SASS patching: what ncu says each executed instruction costs)
S=sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared
[ "${REPLAY_SECOND:-0}" -ge 3 ] && M=$M,${S}_op_ld.sum,${S}_op_st.sum,${S}_op_ldgsts.sum
run() {  # name list spec...
  local name=$1 list=$L/$2; shift 2
  [ -s "$list" ] || { echo "$name: no list $list"; return; }
  local t=$(date +%s)
  timeout 240 ncu --clock-control none --metrics "$M" --csv --log-file "$R/$name.csv" \
    "$R/replay" "$list" "$R/$name.launches" "$@" > "$R/$name.log" 2>&1
  echo "$name: rc=$? $(wc -l < "$R/$name.launches") launches, $(( $(date +%s) - t )) s"
  python3 bench/experiments/hopper/replay_rows.py "$L" "$R" > "$O/replay.txt" 2>&1  # after every run: a cut-off call keeps what ran
}
# Alone (one warp, one instruction), as recorded (cp.async .ca with cuBLAS's L2::128B hint), then
# without the hint; then many warps at once (the kernel's own grid where it matters); then the
# copies again from lines L1 already holds (w).
if [ -z "${REPLAY_SECOND:-}" ]; then
run sg512_cp     sg512_cpasync.list  as:1:1:1:184 ca:1:1:1:184 as:384:2:1:24 as:384:2:8:24
run sg512_ld     sg512_ld.list       as:1:1:1:107
run sg512_st     sg512_st.list       as:1:1:1:8
run hg512_cp     hg512_cpasync.list  cg:1:1:1:160 ca128:1:1:1:160 cg:96:4:6:24 ca128:96:4:6:24
run hg1024_ld    hg1024_ld.list      as:1:1:1:95 as:64:12:1:12
run hg1024_st    hg1024_st.list      as:1:1:1:12
run bf1024_ld    bf1024_ld.list      as:1:1:1:4
run bf1024_st    bf1024_st.list      as:1:1:1:60 as:128:12:1:12
run bf512_ld     bf512_ld.list       as:1:1:1:16
run bf512_st     bf512_st.list       as:1:1:1:60
run sg1024_cp    sg1024_cpasync.list as:1:1:1:200 as:128:4:4:24
elif [ "$REPLAY_SECOND" = 1 ]; then  # the second call (warm sources; stores and loads of every kernel at once)
run sg512_cpw    sg512_cpasync.list  ca128w:1:1:1:184 ca128w:384:2:1:24
run hg512_cpw    hg512_cpasync.list  cgw:1:1:1:160 cgw:96:4:6:24
run sg1024_cpw   sg1024_cpasync.list ca128w:1:1:1:200
run sg512_many   sg512_st.list       as:384:2:1:8 as:384:2:8:8
run sg512_ldmany sg512_ld.list       as:384:2:8:12
run hg1024_many  hg1024_st.list      as:64:12:1:12 as:64:12:8:12
run bf1024_many  bf1024_st.list      as:128:12:8:12 as:1:12:1:12 as:16:12:1:12
run bf512_many   bf512_st.list       as:96:12:1:12 as:96:12:8:12
run hg512_many   hg512_st.list       as:96:4:1:12 as:96:4:8:12
elif [ "$REPLAY_SECOND" = 2 ]; then  # the third call: the SGEMMs' LDGSTS beside their own LDS, as in the kernels' main loops
REPLAY_WITH=$L/sg512_ld.list run sg512_pair  sg512_cpasync.list pair:1:1:1:24 pair:384:2:1:24 pair:384:2:8:24
REPLAY_WITH=$L/sg1024_ld.list run sg1024_pair sg1024_cpasync.list pair:1:1:1:24 pair:128:4:8:24
REPLAY_WITH=$L/hg512_ld.list run hg512_pair  hg512_cpasync.list paircg:1:1:1:16 paircg:96:4:8:16
elif [ "$REPLAY_SECOND" = 3 ]; then  # the fourth call: same-bank lanes' sources L lines apart, and ncu's instruction-level counts
run sg512_lines  sg512_cpasync.list  as:1:1:1:184 ca128@8:1:1:1:184 ca128@16:1:1:1:184 ca128@2:1:1:1:40 ca128@4:1:1:1:40 ca128@64:1:1:1:40
run sg1024_lines sg1024_cpasync.list as:1:1:1:200 ca128@32:1:1:1:200 ca128@8:1:1:1:60
run sg512_ldss   sg512_ld.list       as:1:1:1:107
run hg512_cgs    hg512_cpasync.list  cg:1:1:1:160
elif [ "$REPLAY_SECOND" = 4 ]; then  # the fifth call: zero-filling copies (src-size 0), every lane or the odd ones
run sg512_zero   sg512_cpasync.list  ca128z:1:1:1:184 ca128h:1:1:1:184 ca128z:384:2:8:24
run sg1024_zero  sg1024_cpasync.list ca128z:1:1:1:200 ca128h:1:1:1:60
run hg512_zero   hg512_cpasync.list  ca128z:1:1:1:160 ca128h:1:1:1:160
fi
python3 bench/experiments/hopper/replay_rows.py "$L" "$R" > "$O/replay.txt" 2>&1; cat "$O/replay.txt"
tar -C "$O" -czf "$O/raw.tgz" r
echo "total $(( $(date +%s) - T0 )) s"
