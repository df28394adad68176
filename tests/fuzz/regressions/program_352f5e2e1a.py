"""Fuzzer regression (seed 60949).

Before the fix: hook h6[2]: value: max error 0.411 (cholesky's backward solved L^-H phi L^-1 with general
    solves, reading L's zero upper triangle, and symmetrized phi first: in the second derivative
    a hook on U saw other values in its lower triangle; now PyTorch's cholesky_backward op by
    op, L^-1 from a triangular solve)
"""

SEED = 60949
PROGRAM = """
v3 = torch.tensor([[[3.47226, 0.450004, 0.367147], [0.450004, 8.66718, 0.834297], [0.367147, 0.834297, 7.26294]], [[5.03642, -2.01408, 2.22179], [-2.01408, 7.05502, -2.32219], [2.22179, -2.32219, 5.43174]]], dtype=torch.float64, requires_grad=True)
v4, v5 = torch.linalg.cholesky_ex(v3, upper=True)
_ = v4.register_hook(hook('h6'))
"""
