"""Fuzzer regression (seed 810463).

Before the fix: statement 1 `v8 = torch.linalg.cond(v7, 'nuc')`: error: glassgrad raised RuntimeError:
    linalg.svd: The algorithm failed to converge because the input matrix contained non-finite
    values.
"""

SEED = 810463
PROGRAM = """
v7 = torch.tensor([[-0.0, -0.0, -0.0], [0.0, -0.0, -0.0], [-0.0, 0.0, -0.0]], dtype=torch.float64, requires_grad=True)
v8 = torch.linalg.cond(v7, 'nuc')
"""
