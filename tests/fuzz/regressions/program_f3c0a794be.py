"""Fuzzer regression (seed 844747).

Before the fix: statement 1 `v15 = v12.fmod_(v12)` v12: value: glassgrad [[1 0 0 0 0]  [0 0 1 0 0]  [0 1 0 0
    0]], PyTorch [[0 0 0 0 0]  [0 0 1 0 0]  [0 1 0 0 0]]
"""

SEED = 844747
PROGRAM = """
v12 = torch.nn.functional.one_hot(torch.tensor([0, 2, 1], dtype=torch.int64), 5)
v15 = v12.fmod_(v12)
"""
