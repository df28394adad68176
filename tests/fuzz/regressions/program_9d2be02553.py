"""Fuzzer regression (seed 60563).

Before the fix: statement 2 `with torch.no_grad(): v3 = True / v2` v3: value: infinities differ (softshrink's
    middle was +0.0; PyTorch's kernel computes x * 0, -0.0 for a negative x)
"""

SEED = 60563
PROGRAM = """
v1 = torch.tensor([[-1.63592, -1.20009, -0.407887], [1.49657, 1.44836, -1.80109], [1.2918, 4.33065, -0.430454], [0.0293397, 3.02513, 5.59559]], dtype=torch.float32, requires_grad=True)
v2 = torch.nn.functional.softshrink(v1, lambd=1.5)
with torch.no_grad(): v3 = True / v2
"""
