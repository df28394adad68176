"""Fuzzer regression (seed 2346).

Before the fix: found: before: phase backward: error: PyTorch raised RuntimeError: Subtraction, the `-`
    operator, with a bool tensor is not supported. If you are trying to invert a mask, use the
    `~` or `logical_not()` operator instead.
"""

SEED = 2346
PROGRAM = """
v0 = torch.tensor([-2.06549, -0.66067, 1.61752, 0.430636], dtype=torch.float64, requires_grad=True)
v1 = v0.expand(2, *v0.shape)
v2 = torch.nn.functional.embedding(torch.tensor([[1, 3], [1, 1]], dtype=torch.int64), v1.reshape((4, 2)), scale_grad_by_freq=True)
v3 = torch.tensor([[[-2.28387, 0.631329], [-0.00451386, -0.0470075]], [[-1.69949, -0.374414], [1.44683, 0.495555]]], dtype=torch.float32, requires_grad=True)
v4 = v2 < v3
v5 = v2.acos_()
v6 = v5 ** v4
"""
