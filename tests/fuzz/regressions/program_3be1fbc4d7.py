"""Fuzzer regression (seed 620462).

Before the fix: phase grad requires_grad: flags: glassgrad [True, True], PyTorch [False, True]
"""

SEED = 620462
PROGRAM = """
v8 = torch.tensor([[0.374114, -0.538397, -0.878622], [0.115322, -1.99605, -1.31998]], dtype=torch.float64, requires_grad=True)
v9 = v8.repeat(0, 2)
v11 = torch.tensor(-0.0378217, dtype=torch.float64, requires_grad=True)
v9[..., -1] *= v11
"""
