#!/usr/bin/env bash
# One device call: the hardware tracer's traces of labs 00 to 07 (stub and solution; lab 07's
# launcher takes tensor maps, which lab_driver encodes in the kernel's mode), for
# emu/tests/hardware_trace_test.cpp to hold the emulator's records against, record for record:
#   run: bash emu/bench/emu_vs_trace_device.sh      (writes $OUT/emu_trace.tgz)
# Builds only what tracing needs, straight from the sources (no CMake, no GoogleTest: seconds on
# 16 cores): the injection library (trace/src/inject.cpp and the tracer's core, the model) and its
# device patch, and tools/trace/tests/lab_driver.cu against labs/ and solutions/; then runs the
# driver's launches of labs 00 to 07 (the sizes of tools/trace/tests/lab_driver_labs.inc) with
# CUDA_INJECTION64_PATH set, as `banklab trace` does. Copy the sixteen h200_*.bltrace files and
# their .source.sha256 into emu/tests/data/ (emu.HardwareTrace skips a lab whose file is absent).
set -u
OUT=${OUT:-/tmp/out}
O=$OUT/emu; mkdir -p "$O"
B=/tmp/emutrace; mkdir -p "$B"
CUDA=${CUDA:-/usr/local/cuda}
S=$CUDA/compute-sanitizer
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  "$CUDA/bin/nvcc" --version | tail -2 | head -1
  "$S/compute-sanitizer" --version | grep Version
} > "$O/versions.txt" 2>&1
TMA=0
[[ $(grep -cE "SANITIZER_INSTRUCTION_TMA_(LOAD|STORE)[ ]*=" "$S/include/sanitizer_patching.h") == 2 ]] && TMA=1
t0=$(date +%s.%N)
"$CUDA/bin/nvcc" --fatbin --compile-as-tools-patch -gencode arch=compute_90,code=sm_90 -DBANKLAB_SANITIZER_HAS_TMA=$TMA \
  -I"$S/include" -Itrace/include trace/src/patch.cu -o "$B/banklab_trace_patch.fatbin" > "$O/patch.log" 2>&1 &
for f in trace/src/inject.cpp trace/src/trace.cpp trace/src/report.cpp trace/src/merger.cpp trace/src/lines.cpp trace/src/drain.cpp \
         common/src/model.cpp common/src/pattern_io.cpp common/src/describe.cpp; do
  g++ -std=c++17 -O2 -fPIC -c -DBANKLAB_SANITIZER_HAS_TMA=$TMA -Itrace/include -Itrace/src -Icommon/include \
    -I.carry/nlohmann_json/include -I"$S/include" -I"$CUDA/include" "$f" -o "$B/$(basename "$f" .cpp).o" > "$O/cc_$(basename "$f").log" 2>&1 &
done
for v in labs solutions; do
  "$CUDA/bin/nvcc" -std=c++17 -lineinfo -arch=sm_90 -Icommon/include -I$v tools/trace/tests/lab_driver.cu \
    -o "$B/driver_$v" > "$O/driver_$v.log" 2>&1 &
done
# The emulator's rate on an idle machine (emu/bench/emu_rate.cpp; the PTX as emu/tests/CMakeLists.txt makes it).
for f in emu/src/*.cpp emu/bench/emu_rate.cpp; do
  g++ -std=c++17 -O2 -c -Iemu/include -Iemu/src -Itrace/include -Icommon/include "$f" -o "$B/emu_$(basename "$f" .cpp).o" \
    > "$O/emu_cc_$(basename "$f").log" 2>&1 &
done
# bench/trace_many.cu (32 kernels: issue 47's fidelity target beside trace_ops.cu), traced as the labs are,
# and its PTX for emu/tests/recorded_bench_test.cpp.
"$CUDA/bin/nvcc" -std=c++17 -O3 -lineinfo -arch=sm_90 bench/trace_many.cu -o "$B/trace_many" > "$O/trace_many.log" 2>&1 &
"$CUDA/bin/nvcc" -ptx -std=c++17 -O3 -lineinfo -arch=sm_90 bench/trace_many.cu -o "$B/trace_many.ptx" &
for v in labs solutions; do for lab in 00_bank_mapping 01_32way_conflict; do
  "$CUDA/bin/nvcc" -ptx -arch=sm_90 -lineinfo -std=c++17 -w -Icommon/include $v/$lab/kernel.cu -o "$B/${v}_${lab:0:2}.ptx" &
done; done
wait
g++ -shared -o "$B/libbanklab_trace_inject.so" "$B"/{inject,trace,report,merger,lines,drain,model,pattern_io,describe}.o -L"$S" -Wl,-rpath,"$S" -lsanitizer-public \
  -L"$CUDA/lib64/stubs" -lcuda -ldl -lpthread > "$O/link.log" 2>&1 || { cat "$O"/*.log | tail -40; }
echo "build: $(python3 -c "import time; print(f'{time.time()-$t0:.1f}')") s" | tee "$O/build_time.txt"
for v in labs solutions; do
  for lab in 00 01 02 03 04 05 06 07; do
    CUDA_INJECTION64_PATH=$B/libbanklab_trace_inject.so BANKLAB_TRACE_OUT=$O/h200_${v}_$lab.bltrace BANKLAB_TRACE_STATS=1 \
      timeout 60 "$B/driver_$v" $lab 1 1 > "$O/run_${v}_$lab.log" 2>&1
    echo "$v $lab: rc=$? $(stat -c %s "$O/h200_${v}_$lab.bltrace" 2>/dev/null) bytes" | tee -a "$O/runs.txt"
    # the text the trace is of: emu.HardwareTrace compares only a trace of the file as it is now
    sha256sum $v/${lab}_*/kernel.cu | cut -d' ' -f1 > "$O/h200_${v}_$lab.source.sha256"
  done
done
CUDA_INJECTION64_PATH=$B/libbanklab_trace_inject.so BANKLAB_TRACE_OUT=$O/trace_many.bltrace BANKLAB_TRACE_STATS=1 \
  timeout 120 "$B/trace_many" 1 1 > "$O/run_trace_many.log" 2>&1
echo "trace_many: rc=$? $(stat -c %s "$O/trace_many.bltrace" 2>/dev/null) bytes" | tee -a "$O/runs.txt"
sha256sum bench/trace_many.cu | cut -d' ' -f1 > "$O/trace_many.source.sha256"
g++ -o "$B/emu_rate" "$B"/emu_*.o "$B"/trace.o "$B"/report.o "$B"/merger.o "$B"/lines.o "$B"/drain.o "$B"/model.o "$B"/pattern_io.o \
  "$B"/describe.o -lpthread > "$O/emu_link.log" 2>&1
"$B/emu_rate" 20 "$B/labs_00.ptx" _ZN5lab0013multiply_by_iEPKfPf 256 1048576 1048576 \
  "$B/solutions_00.ptx" _ZN5lab0013multiply_by_iEPKfPf 256 1048576 1048576 \
  "$B/labs_01.ptx" _ZN5lab018row_sumsEPKfPf 512 2097152 65536 \
  "$B/solutions_01.ptx" _ZN5lab018row_sumsEPKfPf 512 2097152 65536 2>&1 | tee "$O/emu_rate.txt"
cp "$B"/*.ptx "$O/" 2>/dev/null
tail -n 3 "$O"/*.log
tar czf "$OUT/emu_trace.tgz" -C "$OUT" emu
