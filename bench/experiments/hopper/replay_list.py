"""The warp instructions of one kernel, as `banklab trace --format predict` wrote them, as a list
that bench/experiments/hopper/replay.cu replays one by one under Nsight Compute:
    python3 bench/experiments/hopper/replay_list.py PREDICT_FILE KERNEL_REGEX [--ops ld,st,cpasync] > LIST
One line per distinct instruction: `id pc count traced op width mask off0..off31 src0..src31`, where
`traced` is the wavefronts the tracer charged one such warp instruction (its `# traced cost:` line), and
src_i is lane i's global source bank (cpasync; -1 where the lane is inactive, -2 where it read nothing
(a zero-filling copy, "z" in the trace), the model's 16 * i bank where the trace printed none). Sorted by count, largest first."""
import re
import sys


def main():
    path, kernel_re = sys.argv[1], re.compile(sys.argv[2])
    ops = set(sys.argv[sys.argv.index("--ops") + 1].split(",")) if "--ops" in sys.argv else None
    rows, head, banks, traced = [], None, None, None
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("# traced cost: "):
            traced = int(line.split()[3])
            continue
        if line.startswith("# global source banks"):
            banks = line.split(":", 1)[1].split()
            continue
        if line.startswith("# "):
            t = line[2:].split()
            count = int(t[-1][1:])
            if len(t) >= 3 and t[-3] == "pc":
                pc, kernel = t[-2], " ".join(t[:-3])
            else:
                pc, kernel = t[-2], " ".join(t[:-2])
            head, banks, traced = (kernel, pc, count), None, None
            continue
        if not line.strip() or head is None:
            continue
        kernel, pc, count = head
        head = None
        f = line.split()
        op, width, mask, offs = f[0], int(f[1]), int(f[2], 16), [int(x) for x in f[3:35]]
        if not kernel_re.search(kernel) or (ops and op not in ops):
            continue
        if op == "cpasync":
            src = [-2 if b == "z" else int(b) if b != "-" else -1 for b in banks] if banks else [(4 * i) % 32 for i in range(32)]
            src = [s if (mask >> i) & 1 else -1 for i, s in enumerate(src)]
        else:
            src = [-1] * 32
        rows.append((count, pc, traced, op, width, mask, offs, src))
    rows.sort(key=lambda r: -r[0])
    for i, (count, pc, traced, op, width, mask, offs, src) in enumerate(rows):
        print(i, pc, count, traced, op, width, f"{mask:08x}", *offs, *src)


if __name__ == "__main__":
    main()
