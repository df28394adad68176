"""Fuzzer regression (seed 1808).

Before the fix: found: before: phase gradgrad: error: PyTorch raised RuntimeError: Expected a proper Tensor but
    got None (or an undefined Tensor in C++) for argument #1 'other'
"""

SEED = 1808
PROGRAM = """
v0 = torch.tensor([[-0.63293, -0.459665, 0.0628818, -1.04132], [-0.28593, 0.543306, -0.955754, 1.17923], [-0.447884, -1.0544, 1.38779, 1.65488]], dtype=torch.float64, requires_grad=True)
v2 = v0.cos()
v5 = torch.tensor([0.154243, 0.810981, 0.605383, -1.33522], dtype=torch.float64, requires_grad=True)
v7 = torch.nn.functional.layer_norm(v2, (4,), None, v5)
"""
