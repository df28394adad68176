"""Fuzzer regression (seed 2421).

Before the fix: found: before: phase backward: error: PyTorch raised RuntimeError: one of the variables needed
    for gradient computation has been modified by an inplace operation: [torch.DoubleTensor
    [3]], which is output 0 of torch::autograd::CopyBackwards, is at version 1; expected version
    0 instead. Hint: enable anomaly detection to find the operation that failed to compute its
"""

SEED = 2421
PROGRAM = """
v1 = torch.tensor([[2.48729, 0.775137, -0.864744], [0.878579, -1.3328, 0.840405], [0.189295, -0.29422, 0.159853], [-0.0063915, -1.91123, 1.25031]], dtype=torch.float64, requires_grad=True)
v2 = torch.tensor([-0.960456, -1.16941, 1.58801], dtype=torch.float64)
v3 = torch.tensor([0.600535, 0.606525, 1.32399], dtype=torch.float64)
v4 = torch.tensor([-0.308313, 0.0593559, -1.67636], dtype=torch.float64, requires_grad=True)
v5 = torch.tensor([0.129564, -1.24614, 0.1202], dtype=torch.float64, requires_grad=True)
v6 = torch.nn.functional.batch_norm(v1, v2, v3, v4, v5, training=True)
v9 = torch.tensor([1.93859, 0.395444, -1.13375], dtype=torch.float64, requires_grad=True)
v14 = v2.copy_(v9)
"""
