"""Fuzzer regression (fuzz-strides, seed 110462).

Before the fix: phase backward: error: PyTorch raised RuntimeError: one of the variables needed for gradient
    computation has been modified by an inplace operation: [torch.DoubleTensor [4]] is at
    version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation
    that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True,
"""

SEED = 110462
PROGRAM = """
v0 = torch.tensor([[0.187346, -1.9429, 0.605272, 1.26108]], dtype=torch.float64, requires_grad=True)
v1 = v0 == v0
v2 = 3 < v1
v4 = torch.tensor(0.44842, dtype=torch.float64, requires_grad=True)
with torch.no_grad(): v5 = v1 // v4
v6 = torch.tensor([[0.17261, -0.544909, -0.110447, -0.987181], [-1.84465, -0.815038, 0.957385, 0.783531], [-0.911871, 0.291813, -0.440628, 0.0264136]], dtype=torch.float64, requires_grad=True)
v7 = torch.tensor([[1.30164], [0.709285], [0.0659162]], dtype=torch.float64)
v8 = v6.addcdiv(v7, v5.reshape((4,)), value=2)
v9 = v5.mul_(v2)
"""
