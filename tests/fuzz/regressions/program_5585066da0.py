"""Fuzzer regression (seed 75706).

Before the fix: phase backward: error: glassgrad raised RuntimeError: linalg.solve: The solver failed because
    the input matrix is singular.
"""

SEED = 75706
PROGRAM = """
v1 = torch.tensor([[1.0, 0.0], [0.0, 0.0]], dtype=torch.float64, requires_grad=True)
v2 = torch.tensor([1.10611, -0.122996], dtype=torch.float64, requires_grad=True)
v3, v4 = torch.linalg.solve_ex(v1, v2)
"""
