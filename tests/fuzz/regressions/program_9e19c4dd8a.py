"""Fuzzer regression (seed 845201).

Before the fix: statement 2 `v7, v8, v9, v10 = torch.linalg.lstsq(v5, v6, driver='gels')` v8: value: max error
    3.13: glassgrad [3.13082139 0.69742576], PyTorch [0. 0.]
"""

SEED = 845201
PROGRAM = """
v5 = torch.tensor([[0.0, 0.0, 0.0], [-0.0, 0.0, -0.0], [0.0, 0.0, 0.0], [-0.0, 0.0, 0.0]], dtype=torch.float64, requires_grad=True)
v6 = torch.tensor([[0.510747, 0.648543], [-1.46239, 0.428828], [-0.8552, -0.278828], [0.00270976, -0.123204]], dtype=torch.float64)
v7, v8, v9, v10 = torch.linalg.lstsq(v5, v6, driver='gels')
"""
