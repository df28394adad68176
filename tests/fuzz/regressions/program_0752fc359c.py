"""Fuzzer regression (seed 73620).

Before the fix: phase backward v2.grad: value: infinities differ: -inf where PyTorch's -grad * ((a / b) / b)
    gives -2.1e299 (glassgrad divided by b * b, which underflowed)
"""

SEED = 73620
PROGRAM = """
v2 = torch.tensor([16.0, -17.5, 30.0, -40.0, 1e-300], dtype=torch.float64, requires_grad=True)
v3 = torch.special.bessel_j1(v2)
v5 = v3 / v2
"""
