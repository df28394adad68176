"""Fuzzer regression (seed 2374).

Before the fix: found: before: phase gradgrad[0]: value: NaN where the other has none: [0. 0. 0. 0.] / [nan  0.
    0.  0.]
"""

SEED = 2374
PROGRAM = """
v0 = torch.tensor([0.602475, -0.742699, -1.08835, 0.759583], dtype=torch.float64, requires_grad=True)
v1 = v0[::2]
v2, v3 = v1.split(1, 0)
v4 = torch.logical_or(torch.tensor([[3, 1, 2, -3], [0, 1, -3, -1], [3, 1, 1, -1]], dtype=torch.int64), torch.tensor([False, True, True, False], dtype=torch.bool))
v5 = v4 ** v2
"""
