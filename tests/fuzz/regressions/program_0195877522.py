"""Fuzzer regression (seed 2918).

Before the fix: found: before: phase backward: error: PyTorch raised RuntimeError: one of the variables needed
    for gradient computation has been modified by an inplace operation: [torch.LongTensor [1,
    4]] is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the
    operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True
"""

SEED = 2918
PROGRAM = """
v2 = torch.tensor([[-0.269675, -0.0343811, 0.801754, -0.604501], [1.17391, -0.217853, 1.35124, 0.506357], [0.0425877, -2.78053, 0.0688327, -0.729528]], dtype=torch.float64, requires_grad=True)
v3 = v2.trunc()
v6, v7 = torch.min(v2, 0, keepdim=True)
v10 = v3.diagonal()
v7[0, 1:] = v10
"""
