"""Fuzzer regression (seed 30536).

Before the fix: phase backward v7.grad: value: NaN where the other has none (acosh's derivative at x < -1:
    PyTorch's real formula rsqrt(x^2 - 1) is finite there, sqrt(x - 1) sqrt(x + 1) was NaN)
"""

SEED = 30536
PROGRAM = """
v7 = torch.tensor([[-0.817414, -0.499817, 0.215518, -0.563742, -1.46973, 0.528482], [-0.460023, -0.403698, -2.97112, 0.532575, 0.698518, 0.694859]], dtype=torch.float32, requires_grad=True)
v12 = v7.reshape((3, 4)).arccosh()
"""
