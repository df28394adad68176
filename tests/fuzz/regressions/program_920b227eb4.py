"""Fuzzer regression (seed 805719).

Before the fix: phase gradgrad[0]: value: NaN where the other has none: [[nan nan nan nan]  [nan nan nan nan]
    [nan nan nan nan]] / [[-inf  inf -inf -inf]  [ inf  inf -inf -inf]  [ inf  inf -inf  inf]]
"""

SEED = 805719
PROGRAM = """
v8 = torch.tensor([[-0.0, 0.0, -0.0, 0.0], [-0.0, 0.0, 0.0, 0.0], [-0.0, -0.0, -0.0, -0.0]], dtype=torch.float64, requires_grad=True)
v9 = torch.lgamma(v8)
v11 = abs(v9)
"""
