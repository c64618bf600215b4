"""Real kernels that use ldmatrix / stmatrix / cp.async / shared atomics, for
bench/trace_ops_vs_ncu.sh: one PyTorch op per run, small enough for ncu.

    python3 bench/trace_torch_model.py OP
    OP: gemm_fp16 gemm_bf16 gemm_fp16_tall sdpa sdpa_causal sdpa_mem layernorm conv_fp16
        histc sort index_add step
`step` is one training step of a small transformer layer (forward, backward, AdamW),
warmed up once, then timed: what `banklab trace` costs on a model step.
"""
import sys
import time

import torch
import torch.nn.functional as F

op = sys.argv[1]
torch.manual_seed(0)
dev = "cuda"
h = torch.float16
if op == "gemm_fp16":
    y = torch.randn(256, 256, device=dev, dtype=h) @ torch.randn(256, 256, device=dev, dtype=h)
elif op == "gemm_bf16":
    y = torch.randn(384, 256, device=dev, dtype=torch.bfloat16) @ torch.randn(256, 512, device=dev, dtype=torch.bfloat16)
elif op == "gemm_fp16_tall":
    y = torch.randn(4096, 64, device=dev, dtype=h) @ torch.randn(64, 128, device=dev, dtype=h)
elif op in ("sdpa", "sdpa_causal"):
    q, k, v = (torch.randn(2, 8, 256, 64, device=dev, dtype=h) for _ in range(3))
    with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.FLASH_ATTENTION):
        y = F.scaled_dot_product_attention(q, k, v, is_causal=op == "sdpa_causal")
elif op == "sdpa_mem":
    q, k, v = (torch.randn(2, 8, 256, 64, device=dev, dtype=h) for _ in range(3))
    with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.EFFICIENT_ATTENTION):
        y = F.scaled_dot_product_attention(q, k, v)
elif op == "layernorm":
    y = F.layer_norm(torch.randn(512, 1024, device=dev, dtype=h), (1024,))
elif op == "conv_fp16":
    y = F.conv2d(torch.randn(4, 64, 32, 32, device=dev, dtype=h).to(memory_format=torch.channels_last),
                 torch.randn(64, 64, 3, 3, device=dev, dtype=h).to(memory_format=torch.channels_last), padding=1)
elif op == "histc":
    y = torch.histc(torch.rand(1 << 18, device=dev), bins=256)
elif op == "sort":
    y = torch.sort(torch.randint(0, 1 << 30, (1 << 16,), device=dev))[0]
elif op == "index_add":
    y = torch.zeros(64, device=dev).index_add_(0, torch.randint(0, 64, (1 << 16,), device=dev), torch.ones(1 << 16, device=dev))
elif op == "step":
    layer = torch.nn.TransformerEncoderLayer(256, 8, 1024, batch_first=True, device=dev, dtype=h)
    opt = torch.optim.AdamW(layer.parameters(), lr=1e-4, eps=1e-4)
    x = torch.randn(8, 128, 256, device=dev, dtype=h)
    def one():
        opt.zero_grad(set_to_none=True)
        layer(x).float().pow(2).mean().backward()
        opt.step()
    one(); torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(3):
        one()
    torch.cuda.synchronize()
    print(f"step: 3 steps in {time.perf_counter() - t:.3f} s (after one warm-up step)")
    sys.exit(0)
else:
    sys.exit(f"unknown op {op}")
torch.cuda.synchronize()
print(op, tuple(y.shape))
