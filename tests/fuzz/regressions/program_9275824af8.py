"""Fuzzer regression (seed 81661).

Before the fix: phase gradgrad: error: glassgrad raised RuntimeError: view size is not compatible with input
    tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use
    .reshape(...) instead.
"""

SEED = 81661
PROGRAM = """
v0 = torch.tensor([[-0.820745, 0.782765, 1.34988], [2.51415, -1.0034, -0.28663], [-1.23979, 1.70736, -0.0143855], [-1.44283, 1.11336, 0.33517]], dtype=torch.float64, requires_grad=True)
v1 = v0[:, [0, 0]].view(-1)
v4 = torch.tensor([1.4979, 0.400596, -0.259144, 0.100813, -0.771035, 0.603194, 0.164204, 0.76993], dtype=torch.float64)
v5 = v1 % v4
v6 = v1.mul_(v5)
"""
