"""Fuzzer regression (seed 620156).

Before the fix: phase backward: error: glassgrad raised ValueError: axis2: axis 1 is out of bounds for array of
    dimension 1
"""

SEED = 620156
PROGRAM = """
v1 = torch.tensor([[0.945302, 1.15853, 0.520951, -0.983341]], dtype=torch.float64, requires_grad=True)
v3 = v1.transpose(0, 1)
with torch.no_grad(): v20 = v3.squeeze_()
"""
