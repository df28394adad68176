"""Fuzzer regression (seed 30590).

Before the fix: statement 1 `v11 = torch.cholesky(v4, True)` v11: value: max error 0.632 (glassgrad factored the
    symmetric part, PyTorch reads the upper triangle)
"""

SEED = 30590
PROGRAM = """
v4 = torch.tensor([[3.85698, 0.0770331, 1.96125], [1.08909, 2.88664, -0.397833], [-0.520811, -1.3449, 1.88885]], dtype=torch.float64, requires_grad=True)
v11 = torch.cholesky(v4, True)
"""
