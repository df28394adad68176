"""Fuzzer regression (fuzz-views, seed 72584).

Before the fix: statement 5 `v3[...] += v4`: error: PyTorch raised RuntimeError: a leaf Variable that requires
    grad is being used in an in-place operation.
"""

SEED = 72584
PROGRAM = """
v0 = torch.tensor([-0.668831, 2.02751, 2.19408, 2.2934], dtype=torch.float64, requires_grad=True)
v1 = torch.select(v0, 0, 3)
v2 = v1.detach()
v3 = v2.view(-1)
v4 = torch.tensor(0.547731, dtype=torch.float64, requires_grad=True)
v3[...] += v4
"""
