"""Fuzzer regression (seed 770671).

Before the fix: phase backward v1.grad: value: infinities differ: [[ inf  inf -inf]  [-inf -inf  inf]] / [[ inf
    inf -inf]  [-inf  inf  inf]]
"""

SEED = 770671
PROGRAM = """
v1 = torch.tensor([[0.0, 0.0, 0.0], [0.0, -0.0, 0.0]], dtype=torch.float64, requires_grad=True)
v9 = v1 ** 0.5
"""
