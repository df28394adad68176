"""Fuzzer regression (seed 850019).

Before the fix: phase backward v11.grad: value: infinities differ: [ inf  inf -inf] / [-inf -inf -inf]
"""

SEED = 850019
PROGRAM = """
v11 = torch.tensor([-0.0, -0.0, 0.0], dtype=torch.float64, requires_grad=True)
v12 = torch.logit(v11)
"""
