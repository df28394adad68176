"""Fuzzer regression (fuzz-strides, seed 202169).

Before the fix: phase backward: error: glassgrad raised RuntimeError: one of the variables needed for gradient
    computation has been modified by an inplace operation: [torch.DoubleTensor [1, 3]], which is
    output 0 of Clamp, is at version 1; expected version 0 instead.
"""

SEED = 202169
PROGRAM = """
v0 = torch.tensor([[0.392097, -1.81464, 1.31663, 0.29639]], dtype=torch.float64, requires_grad=True)
with torch.no_grad(): v1 = v0[:, 1:]
v2 = v1.clone()
v3 = v1 * v2
v4 = v2.clamp_(min=-0.5)
"""
