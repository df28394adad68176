"""Fuzzer regression (seed 74495).

Before the fix: phase gradgrad: error: glassgrad raised RuntimeError: view size is not compatible with input
    tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use
    .reshape(...) instead.
"""

SEED = 74495
PROGRAM = """
v0 = torch.tensor([[-0.406625], [-2.02666], [-0.133436]], dtype=torch.float64, requires_grad=True)
v2 = v0[:, [0, 0]].reshape(-1)
v3 = torch.tensor(0.653246, dtype=torch.float64, requires_grad=True)
v4 = v2.div_(v3)
"""
