"""Fuzzer regression (seed 701826).

Before the fix: phase backward v3.grad: value: NaN where the other has none: [[nan nan nan nan]  [nan nan nan
    nan]] / [[ 0.16557205 -1.19647472 -0.3476825   0.22860149]  [-1.06317021  0.74489018
    -0.48173401 -0.5911416 ]]
"""

SEED = 701826
PROGRAM = """
v3 = torch.tensor([[-1.95233, 0.509626, 0.0875866, -1.10043], [0.547354, 0.279928, -1.20559, -0.613204]], dtype=torch.float64, requires_grad=True)
v4, v5, v6 = torch.linalg.lu(v3)
v7 = v6 % v6
"""
