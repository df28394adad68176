"""Fuzzer regression (seed 80415).

Before the fix: phase backward: error: glassgrad raised RuntimeError: linalg.solve: The solver failed because
    the input matrix is singular.
"""

SEED = 80415
PROGRAM = """
v12 = torch.tensor([[1.0, 0.0], [0.0, 0.0]], dtype=torch.float64, requires_grad=True)
v13 = torch.tensor([-0.294964, 1.89883], dtype=torch.float64)
v14, v15 = torch.linalg.solve_ex(v12, v13)
"""
