"""Fuzzer regression (seed 806926).

Before the fix: hook h6[2]: value: NaN where the other has none: [-0.17157127  0.8602606   0.        ] /
    [-0.17157127  0.8602606          nan]
"""

SEED = 806926
PROGRAM = """
v1 = torch.tensor([[-1.8918, -2.33791, -2.33791, -1.8918], [-1.8918, -2.33791, -2.33791, -1.8918], [-1.8918, -1.8918, -1.8918, -1.8918]], dtype=torch.float32, requires_grad=True)
v2, v3 = torch.std_mean(v1, 1)
_ = v2.register_hook(hook('h6'))
"""
