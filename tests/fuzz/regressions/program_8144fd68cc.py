"""Fuzzer regression (seed 1368).

Before the fix: found: before: phase grad: error: PyTorch raised RuntimeError: The function
    'native_batch_norm_backward' is not differentiable with respect to argument 'running_var'.
    This input cannot have requires_grad True.
"""

SEED = 1368
PROGRAM = """
v0 = torch.tensor([[[[0.920294, 0.718437], [0.912983, 0.682486]], [[1.51032, 0.541149], [-1.62217, -0.203649]], [[0.79152, 0.327714], [1.80553, -0.278626]]], [[[0.0318795, 0.654927], [0.688221, -0.298038]], [[-0.883985, -0.891152], [0.639139, -0.912628]], [[0.597103, -0.658105], [0.867876, 0.265367]]]], dtype=torch.float64, requires_grad=True)
v1 = torch.tensor([-1.348, -2.19988, -0.695981], dtype=torch.float64)
v2 = torch.tensor([1.07491, 0.616426, 0.951099], dtype=torch.float64)
v3 = torch.nn.functional.batch_norm(v0, v1, v2, training=False)
v2.requires_grad_()
"""
