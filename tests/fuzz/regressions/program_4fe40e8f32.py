"""Fuzzer regression (fuzz-strides, seed 160782).

Before the fix: statement 2 `v4 = v1.add_(v3)` v1: value: glassgrad [[2 5] [2 6] [3 6]], PyTorch [[2 5] [3 6] [4
    9]]
"""

SEED = 160782
PROGRAM = """
v1 = torch.combinations(torch.tensor([1, 2, 3], dtype=torch.int64), 2)
v3 = v1.diagonal().view(-1)
v4 = v1.add_(v3)
"""
