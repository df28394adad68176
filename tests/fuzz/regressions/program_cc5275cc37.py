"""Fuzzer regression (seed 81765).

Before the fix: phase backward: error: glassgrad raised RuntimeError: one of the variables needed for gradient
    computation has been modified by an inplace operation (nextafter saved self for other's
    gradient, which reads nothing)
"""

SEED = 81765
PROGRAM = """
v8 = torch.tensor([1.44871, -1.98032, -1.00286], dtype=torch.float64)
v9 = torch.tensor([0.150815, 1.26158, -2.39198], dtype=torch.float64, requires_grad=True)
v10 = v8.nextafter(v9)
v13 = torch.tensor(1.31337, dtype=torch.float64, requires_grad=True)
v8[2] = v13
"""
