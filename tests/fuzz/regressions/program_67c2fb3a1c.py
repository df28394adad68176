"""Fuzzer regression (seed 503064).

Before the fix: statement 5 `v20 = v9.pow_(v19)` v9: value: infinities differ: [ 1.7122383   0.
    10.290112    0.          0.6847184   0.75221604   9.260029    0.                 inf
    inf         inf  0.        ] / [1.7122383e+00 0.0000000e+00 1.0290112e+01 0.0000000e+00
    6.8471837e-01  7.5221604e-01 9.2600288e+00 0.0000000e+00           inf 1.5570094e+15
    inf 0.0000000e+00]
"""

SEED = 503064
PROGRAM = """
v4 = torch.tensor([0.0, 1.0, 0.5], dtype=torch.float32)
v5 = torch.special.shifted_chebyshev_polynomial_u(v4, torch.tensor([[2], [7], [10], [-1]], dtype=torch.int64))
v9 = v5.permute((1, 0)).reshape(-1)
with torch.no_grad(): v13 = torch.nn.functional.relu(v9, inplace=True)
v19 = torch.tensor([0.489528, 1.61927, 0.972179, 0.48678, -0.344751, -0.136927, 0.928192, 0.235242, -0.7733, -2.35309, -0.559813, 2.10078], dtype=torch.float64)
v20 = v9.pow_(v19)
"""
