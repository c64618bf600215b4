# The question's variant (docs/dev/VARIANTS.md): PrairieLearn chooses it. generate() sets
# params.banklab_lab (the lab instructor/platforms/prairielearn/run grades) and params.banklab_variant
# (K: PrairieLearn's own variant seed modulo the lab's count of variants; the grading reads it from
# /grade/data/data.json and grades the submission as variant K), and the variant's numbers and
# question texts that question.html shows; the file editor starts from kernel_vK.cu, the variant's
# stub. The table below and the kernel_vK.cu files are written for a lab by
#   python3 python/banklab_run.py -m banklab.release.prairielearn --lab NN --image REGISTRY/NAME OUT
# (python/banklab/release/prairielearn.py; as committed: lab 05's). No answer is in either.
import hashlib

# BEGIN banklab variants (written by banklab.release.prairielearn: do not edit)
LAB = "05"
VARIANTS = [
    {"params": "col = 5, chunk = 3, elem = float, bytes = 4, chunks = 8, rowbytes = 128", "questions": [{"name": "kUnswizzledColumnReadWavefronts", "what": "a column read of the unswizzled tile (lane i reads tile[i][5])"}, {"name": "kSwizzledColumnReadWavefronts", "what": "a column read of your swizzled tile, once its column reads are conflict-free (lane i reads row i, column 5)"}, {"name": "kBytesSavedOverPadding", "what": "how many bytes smaller is float tile[32][32] (swizzled) than float tile[32][33] (padded)?"}, {"name": "kUnswizzledChunkColumnReadWavefronts", "what": "an unswizzled float4 column read (lane i reads chunk 3 of row i, rows of 128 bytes)"}, {"name": "kSwizzledChunkColumnReadWavefronts", "what": "a float4 column read of your swizzled float4 tile, once its chunk column reads are conflict-free (lane i reads chunk 3 of row i)"}]},
    {"params": "col = 7, chunk = 5, elem = half, bytes = 2, chunks = 16, rowbytes = 256", "questions": [{"name": "kUnswizzledColumnReadWavefronts", "what": "a column read of an unswizzled half tile[32][32] (lane i reads tile[i][7], 2 bytes a lane)"}, {"name": "kSwizzledColumnReadWavefronts", "what": "a column read of your swizzled tile, once its column reads are conflict-free (lane i reads row i, column 7)"}, {"name": "kBytesSavedOverPadding", "what": "how many bytes smaller is half tile[32][32] (swizzled) than half tile[32][33] (padded), with 2-byte elements?"}, {"name": "kUnswizzledChunkColumnReadWavefronts", "what": "an unswizzled float4 column read (lane i reads chunk 5 of row i, rows of 256 bytes)"}, {"name": "kSwizzledChunkColumnReadWavefronts", "what": "a float4 column read of your swizzled float4 tile, once its chunk column reads are conflict-free (lane i reads chunk 5 of row i)"}]},
    {"params": "col = 2, chunk = 1, elem = double, bytes = 8, chunks = 4, rowbytes = 64", "questions": [{"name": "kUnswizzledColumnReadWavefronts", "what": "a column read of an unswizzled double tile[32][32] (lane i reads tile[i][2], 8 bytes a lane)"}, {"name": "kSwizzledColumnReadWavefronts", "what": "a column read of your swizzled tile, once its column reads are conflict-free (lane i reads row i, column 2)"}, {"name": "kBytesSavedOverPadding", "what": "how many bytes smaller is double tile[32][32] (swizzled) than double tile[32][33] (padded), with 8-byte elements?"}, {"name": "kUnswizzledChunkColumnReadWavefronts", "what": "an unswizzled float4 column read (lane i reads chunk 1 of row i, rows of 64 bytes)"}, {"name": "kSwizzledChunkColumnReadWavefronts", "what": "a float4 column read of your swizzled float4 tile, once its chunk column reads are conflict-free (lane i reads chunk 1 of row i)"}]},
    {"params": "col = 11, chunk = 0, elem = float4, bytes = 16, chunks = 2, rowbytes = 32", "questions": [{"name": "kUnswizzledColumnReadWavefronts", "what": "a column read of an unswizzled float4 tile[32][32] (lane i reads tile[i][11], 16 bytes a lane)"}, {"name": "kSwizzledColumnReadWavefronts", "what": "a column read of your swizzled tile, once its column reads are conflict-free (lane i reads row i, column 11)"}, {"name": "kBytesSavedOverPadding", "what": "how many bytes smaller is float4 tile[32][32] (swizzled) than float4 tile[32][33] (padded), with 16-byte elements?"}, {"name": "kUnswizzledChunkColumnReadWavefronts", "what": "an unswizzled float4 column read (lane i reads chunk 0 of row i, rows of 32 bytes)"}, {"name": "kSwizzledChunkColumnReadWavefronts", "what": "a float4 column read of your swizzled float4 tile, once its chunk column reads are conflict-free (lane i reads chunk 0 of row i)"}]},
    {"params": "col = 9, chunk = 13, elem = char, bytes = 1, chunks = 32, rowbytes = 512", "questions": [{"name": "kUnswizzledColumnReadWavefronts", "what": "a column read of an unswizzled char tile[32][32] (lane i reads tile[i][9], 1 bytes a lane)"}, {"name": "kSwizzledColumnReadWavefronts", "what": "a column read of your swizzled tile, once its column reads are conflict-free (lane i reads row i, column 9)"}, {"name": "kBytesSavedOverPadding", "what": "how many bytes smaller is char tile[32][32] (swizzled) than char tile[32][33] (padded), with 1-byte elements?"}, {"name": "kUnswizzledChunkColumnReadWavefronts", "what": "an unswizzled float4 column read (lane i reads chunk 13 of row i, rows of 512 bytes)"}, {"name": "kSwizzledChunkColumnReadWavefronts", "what": "a float4 column read of your swizzled float4 tile, once its chunk column reads are conflict-free (lane i reads chunk 13 of row i)"}]},
]
# END banklab variants


def variant_of(seed, count):
    """PrairieLearn's variant seed (an int, or a text of one) modulo the count of variants."""
    try:
        n = int(seed)
    except (TypeError, ValueError):
        n = int.from_bytes(hashlib.sha256(str(seed).encode()).digest()[:8], "big")
    return n % count


def generate(data):
    k = variant_of(data.get("variant_seed", 0), len(VARIANTS))
    data["params"]["banklab_lab"] = LAB
    data["params"]["banklab_variant"] = k
    data["params"]["banklab_params"] = VARIANTS[k]["params"]
    data["params"]["banklab_questions"] = VARIANTS[k]["questions"]
    data["params"]["banklab_has_questions"] = bool(VARIANTS[k]["questions"])
