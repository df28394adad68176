"""Fuzzer regression (seed 804812).

Before the fix: statement 4 `v6 = torch.nn.functional.instance_norm(v5, v3, v3, use_input_stats=False,
    eps=0.001)`: error: PyTorch raised RuntimeError: The function 'native_batch_norm' is not
    differentiable with respect to argument 'running_mean'. This input cannot have requires_grad
    True.
"""

SEED = 804812
PROGRAM = """
v1 = torch.tensor([0.536983, 1.67807], dtype=torch.float64, requires_grad=True)
v2 = torch.tensor([[0.171786], [-1.2834]], dtype=torch.float64)
v3, v4 = torch.atleast_1d([v1, v2])
v5 = torch.tensor([[[[[-2.21376, -1.46382], [-1.46382, -2.21376]], [[-1.46382, -2.21376], [-1.46382, -1.46382]], [[-2.21376, -1.46382], [-1.46382, -1.46382]]], [[[-2.21376, -2.21376], [-2.21376, -1.46382]], [[-1.46382, -1.46382], [-2.21376, -1.46382]], [[-2.21376, -1.46382], [-2.21376, -2.21376]]]], [[[[-2.21376, -1.46382], [-2.21376, -2.21376]], [[-2.21376, -2.21376], [-1.46382, -1.46382]], [[-1.46382, -2.21376], [-2.21376, -1.46382]]], [[[-1.46382, -1.46382], [-2.21376, -2.21376]], [[-2.21376, -2.21376], [-1.46382, -1.46382]], [[-1.46382, -1.46382], [-1.46382, -2.21376]]]]], dtype=torch.float32, requires_grad=True)
v6 = torch.nn.functional.instance_norm(v5, v3, v3, use_input_stats=False, eps=0.001)
"""
