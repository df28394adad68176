"""Fuzzer regression (seed 920659).

Before the fix: statement 4 `v7 = v6.view(-1).reshape(-1)`: error: glassgrad raised RuntimeError: view size is
    not compatible with input tensor's size and stride (at least one dimension spans across two
    contiguous subspaces). Use .reshape(...) instead.
"""

SEED = 920659
PROGRAM = """
v0 = torch.tensor([-0.0, 0.0, -0.0], dtype=torch.float64, requires_grad=True)
v1 = v0.expand(2, *v0.shape)
v5 = v1.clone()
v6 = v5 // v0
v7 = v6.view(-1).reshape(-1)
"""
