"""Fuzzer regression (seed 842373).

Before the fix: phase grad requires_grad: flags: glassgrad [False], PyTorch [True]
"""

SEED = 842373
PROGRAM = """
v1 = torch.tensor([[3.92337, 6.5225, -1.10663, -1.05117], [0.282455, -5.24823, -2.0174, -1.99685], [-3.83474, 3.41871, 1.34493, 5.30081], [5.84896, -2.2382, 0.888194, -6.213], [2.39644, 4.84093, 2.96383, -3.62447]], dtype=torch.float64, requires_grad=True)
v2 = torch.nn.functional.logsigmoid(v1)
v3 = v2.sgn_()
"""
