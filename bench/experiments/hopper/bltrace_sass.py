"""Static SASS of the kernels a trace recorded: the module images a `banklab trace --keep FILE`
trace file holds (format: trace/src/trace.cpp, write_trace), disassembled with cuobjdump,
and per kernel the count of each shared-memory-related opcode (with its modifiers):
    python3 bench/experiments/hopper/bltrace_sass.py FILE.bltrace WORK_DIR
Used by bench/experiments/hopper/trace_cublas.sh to say which cp.async variant (LDGSTS vs LDGSTS.BYPASS), which
mbarrier, TMA and wgmma instructions a cuBLAS kernel holds."""
import collections
import os
import re
import struct
import subprocess
import sys

OPS = re.compile(r"\b(LDGSTS[.\w]*|LDS[.\w]*|STS[.\w]*|LDSM[.\w]*|STSM[.\w]*|ATOMS[.\w]*|SYNCS[.\w]*|UTMA\w*[.\w]*|"
                 r"UBLKCP[.\w]*|HGMMA[.\w]*|WARPGROUP[.\w]*|LDGDEPBAR|DEPBAR[.\w]*|ST\.ASYNC[.\w]*|RED\.ASYNC[.\w]*)")


def read(path):
    data = open(path, "rb").read()
    assert data[:8] == b"BLTRACE1", "not a trace file"
    (n,) = struct.unpack_from("<Q", data, 16)  # after the magic and the dropped count
    pos = 24
    cubins = []
    for _ in range(n):
        (size,) = struct.unpack_from("<Q", data, pos)
        pos += 8
        cubins.append(data[pos:pos + size])
        pos += size
    return cubins


def main():
    cubins = read(sys.argv[1])
    work = sys.argv[2]
    os.makedirs(work, exist_ok=True)
    for i, c in enumerate(cubins):
        if not c:
            continue
        f = os.path.join(work, "m%d.cubin" % i)
        open(f, "wb").write(c)
        sass = subprocess.run(["cuobjdump", "-sass", f], capture_output=True, text=True).stdout
        fn, counts = None, collections.OrderedDict()
        for line in sass.splitlines():
            m = re.search(r"Function : (\S+)", line)
            if m:
                fn = m.group(1)
                counts[fn] = collections.Counter()
                continue
            if fn and "/*" in line:
                for op in OPS.findall(line.split(";")[0]):
                    counts[fn][op] += 1
        for fn, cnt in counts.items():
            if cnt:
                print("%s: %s" % (fn, ", ".join("%s %d" % kv for kv in sorted(cnt.items()))))


if __name__ == "__main__":
    main()
