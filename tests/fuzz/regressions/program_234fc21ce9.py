"""Fuzzer regression (seed 1781).

Before the fix: found: before: statement 3 `v1[1:] = v5` v1: requires_grad: glassgrad False, PyTorch True
"""

SEED = 1781
PROGRAM = """
v0 = torch.isnan(torch.tensor([-3, -1, 3, 1], dtype=torch.int64))
v1 = v0 + v0
v5 = torch.tensor(-2.24797, dtype=torch.float64, requires_grad=True)
v1[1:] = v5
"""
