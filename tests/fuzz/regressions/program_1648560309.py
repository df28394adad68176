"""Fuzzer regression (seed 70473).

Before the fix: phase gradgrad: error: glassgrad raised RuntimeError: view size is not compatible with input
    tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use
    .reshape(...) instead.
"""

SEED = 70473
PROGRAM = """
v0 = torch.tensor([[0.922928, 0.105743, 1.83157, -0.989704], [-1.35772, 1.29519, -0.533011, -1.50576], [-1.2143, 0.537932, 0.795808, -0.598491]], dtype=torch.float64, requires_grad=True)
v5 = v0[:, [0, 0]].view(-1)
v6 = torch.tensor([[-1.56671, -2.49485, -0.829868, -0.164323, -0.000522819, 0.663291]], dtype=torch.float64, requires_grad=True)
v5[None] *= v6
"""
