#!/usr/bin/env python3
"""Writes N random valid access lines for `banklab predict` (deterministic for a seed).

    tools/scripts/gen_accesses.py 1000000 > /tmp/accesses.txt
    time build/cli/tools/banklab predict /tmp/accesses.txt > /dev/null

Mix: widths 1/2/4/8/16, loads and stores, full or random masks, and offsets that are strided,
random within 4 KiB, or in lane pairs sharing an address (so 64/128-bit loads merge).
"""
import random
import sys


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    out = sys.stdout
    buf = []
    for _ in range(n):
        w = rng.choice((1, 2, 4, 8, 16))
        op = rng.choice(("ld", "st"))
        mask = 0xFFFFFFFF if rng.random() < 0.5 else rng.getrandbits(32)
        kind = rng.randrange(3)
        if kind == 0:
            s = rng.randrange(65)
            offs = [i * s * w for i in range(32)]
        elif kind == 1:
            offs = [rng.randrange(4096 // w) * w for _ in range(32)]
        else:
            offs = [(i // 2) * w for i in range(32)]
        buf.append(f"{op} {w} {mask:08x} " + " ".join(map(str, offs)) + "\n")
        if len(buf) >= 10000:
            out.write("".join(buf))
            buf.clear()
    out.write("".join(buf))


if __name__ == "__main__":
    main()
