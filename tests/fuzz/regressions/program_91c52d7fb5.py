"""Fuzzer regression (seed 410651).

Before the fix: phase backward: error: glassgrad raised RuntimeError: linalg.inv: The diagonal element 1 is
    zero, the inversion could not be completed because the input matrix is singular.
"""

SEED = 410651
PROGRAM = """
v0 = torch.tensor([[-1.08824, 0.270848, 0.637643], [-0.629054, 1.29219, -0.586543], [-0.173416, 0.427767, 1.91028]], dtype=torch.float64, requires_grad=True)
v1 = torch.linalg.matrix_power(v0, 2)
v2 = v1.view(-1)
v3 = v2.sub_(v2)
v7 = v1.logdet()
"""
