"""Fuzzer regression (seed 620344).

Before the fix: statement 4 `v7 = v6.mT.view(-1)`: error: glassgrad raised RuntimeError: view size is not
    compatible with input tensor's size and stride (at least one dimension spans across two
    contiguous subspaces). Use .reshape(...) instead.
"""

SEED = 620344
PROGRAM = """
v0 = torch.tensor([[0.641219, -1.10711, 0.665452], [-1.78476, 0.851401, -1.963]], dtype=torch.float64, requires_grad=True)
v3 = v0.permute((1, 0))
v5 = torch.tensor([[0.773012, 0.963177], [0.32533, -0.108429], [1.60543, 0.911183]], dtype=torch.float32, requires_grad=True)
v6 = v3 / v5
v7 = v6.mT.view(-1)
"""
