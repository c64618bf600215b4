#!/usr/bin/env python3
"""A lab 04 kernel just above the timing target's line (issue 23, item 2; issue 33): the solution
with a share P (percent) of its blocks reading an unpadded tile (32-way conflicted column reads).
Measured on an H100 (docs/perf/gpu_tier_integrity.md): P = 25 % 1.09x the reference, 40 % 1.17x.

  python3 bench/near_line_kernel.py P > kernel.cu
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def near_line_kernel(p: int) -> str:
    s = (ROOT / "solutions" / "04_padding" / "kernel.cu").read_text()
    s = s.replace("  __shared__ float tile[kTileFloats];\n",
                  "  __shared__ float tile[kTileFloats];\n"
                  f"  const int stride = (blockIdx.x * 131 + blockIdx.y * 71) % 100 < {p} ? TILE_DIM : TILE_DIM + kPad;\n", 1)
    s = s.replace("tile[tile_index(static_cast<int>(threadIdx.y) + j, static_cast<int>(threadIdx.x))]",
                  "tile[(static_cast<int>(threadIdx.y) + j) * stride + static_cast<int>(threadIdx.x)]")
    s = s.replace("tile[tile_index(static_cast<int>(threadIdx.x), static_cast<int>(threadIdx.y) + j)]",
                  "tile[static_cast<int>(threadIdx.x) * stride + static_cast<int>(threadIdx.y) + j]")
    if s.count("stride") != 3:
        raise SystemExit("near_line_kernel.py: the solution's kernel changed: update this script")
    return s


if __name__ == "__main__":
    sys.stdout.write(near_line_kernel(int(sys.argv[1])))
