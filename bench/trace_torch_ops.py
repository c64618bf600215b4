"""Real kernels for bench/trace_vs_ncu.sh: one PyTorch op per run, small enough for ncu.

    python3 bench/trace_torch_ops.py OP
    OP: matmul softmax softmax_wide layernorm sum sum_all cumsum sort transpose conv
"""
import sys

import torch

op = sys.argv[1]
torch.manual_seed(0)
dev = "cuda"
torch.backends.cuda.matmul.allow_tf32 = False  # a real SGEMM
torch.backends.cudnn.allow_tf32 = False
if op == "matmul":
    a = torch.ones(512, 512, device=dev)
    b = torch.ones(512, 512, device=dev)
    y = a @ b
elif op == "softmax":
    y = torch.softmax(torch.ones(256, 1024, device=dev), dim=-1)
elif op == "softmax_wide":
    y = torch.softmax(torch.ones(8, 32768, device=dev), dim=-1)
elif op == "sum_all":
    y = torch.ones(1 << 22, device=dev).sum()
elif op == "cumsum":
    y = torch.ones(64, 4096, device=dev).cumsum(dim=1)
elif op == "sort":
    y = torch.sort(torch.arange(1 << 16, 0, -1, device=dev, dtype=torch.float32))[0]
elif op == "layernorm":
    y = torch.nn.functional.layer_norm(torch.ones(256, 1024, device=dev), (1024,))
elif op == "sum":
    y = torch.ones(256, 4096, device=dev).sum(dim=1)
elif op == "transpose":
    y = torch.ones(1024, 1024, device=dev).t().contiguous()
elif op == "conv":
    y = torch.nn.functional.conv2d(torch.ones(1, 16, 64, 64, device=dev),
                                   torch.ones(32, 16, 3, 3, device=dev), padding=1)
else:
    sys.exit(f"unknown op {op}")
torch.cuda.synchronize()
print(op, tuple(y.shape))
