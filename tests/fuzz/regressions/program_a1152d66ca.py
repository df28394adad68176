"""Fuzzer regression (seed 30793).

Before the fix: phase gradgrad: error: PyTorch raised NotImplementedError: the derivative for '_cdist_backward'
    is not implemented (glassgrad differentiated cdist twice also without PyTorch's matrix-
    product path)
"""

SEED = 30793
PROGRAM = """
v12 = torch.tensor([[0.591751, 0.297477, -2.06094, -0.274759], [0.484757, -1.62113, 0.478157, 0.261871], [-0.262008, 0.222614, 0.11102, -0.306871]], dtype=torch.float64, requires_grad=True)
v13 = torch.tensor([[0.66555, 0.158116, -0.552905, 0.387259], [-0.434461, 1.04496, -0.636022, 1.30581]], dtype=torch.float64)
v14 = torch.cdist(v12, v13)
v15 = torch.cdist(v12, v13, compute_mode="use_mm_for_euclid_dist")
"""
