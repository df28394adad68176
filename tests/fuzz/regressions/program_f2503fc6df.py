"""Fuzzer regression (seed 839339).

Before the fix: statement 2 `v6 = v4[[1, 0]]`: error: glassgrad raised IndexError: index 1 is out of bounds for
    dimension 0 with size 1
"""

SEED = 839339
PROGRAM = """
v0 = torch.zeros((2, 0,), dtype=torch.float64, requires_grad=True)
v4 = v0[None]
v6 = v4[[1, 0]]
"""
