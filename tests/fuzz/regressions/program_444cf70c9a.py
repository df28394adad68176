"""Fuzzer regression (seed 810870).

Before the fix: hook h3: presence: glassgrad False, PyTorch True
"""

SEED = 810870
PROGRAM = """
v0 = torch.tensor([1.0, 3.0, 3.0], dtype=torch.float64, requires_grad=True)
v1, v2 = v0.aminmax()
_ = v1.register_hook(hook('h3'))
v4 = v2.copysign_(3)
"""
