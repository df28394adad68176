"""Fuzzer regression (seed 1130).

Before the fix: found: before: phase backward: error: PyTorch raised RuntimeError: one of the variables needed
    for gradient computation has been modified by an inplace operation: [torch.DoubleTensor
    [3]], which is output 0 of torch::autograd::CopySlices, is at version 1; expected version 0
    instead. Hint: enable anomaly detection to find the operation that failed to compute its gra
"""

SEED = 1130
PROGRAM = """
v2 = torch.tensor([1.41932, 1.31429, 1.39], dtype=torch.float64)
v5 = torch.tensor([[[-1.56692, -0.259255, -1.08917, -0.691507], [-0.270681, -0.461615, -0.344038, -1.95595], [-1.75752, 0.300733, 0.784583, 2.30506]], [[1.07234, 0.0637204, -1.5824, 0.776783], [0.68104, -1.74196, 2.19166, -0.685139], [0.251313, -0.609286, 0.152791, 0.915962]]], dtype=torch.float64, requires_grad=True)
v6 = torch.tensor([-1.42436, -1.56523, 0.221957], dtype=torch.float64)
v7 = torch.tensor([-0.403697, 0.148556, 0.274233], dtype=torch.float64, requires_grad=True)
v8 = torch.tensor([-0.209504, -1.1593, 0.865063], dtype=torch.float64, requires_grad=True)
v9 = torch.nn.functional.batch_norm(v5, v6, v2, v7, v8)
v13 = torch.tensor(1.54196, dtype=torch.float64, requires_grad=True)
v2[::2] = v13
"""
