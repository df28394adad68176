"""Fuzzer regression (seed 810631).

Before the fix: phase gradgrad: error: glassgrad raised TypeError: unsupported operand type(s) for /:
    'ZeroGradient' and 'int'
"""

SEED = 810631
PROGRAM = """
v0 = torch.tensor([[2.8022, 2.8022, 2.8022, 2.8022], [2.8022, 2.8022, 2.8022, 2.8022], [2.8022, 2.8022, 2.8022, 2.8022]], dtype=torch.float64, requires_grad=True)
v2, v3 = torch.std_mean(v0, False)
v4 = v3.reshape(-1)
v6 = abs(v4)
"""
