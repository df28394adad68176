"""Fuzzer regression (seed 1283).

Before the fix: found: before: phase backward: error: PyTorch raised RuntimeError: one of the variables needed
    for gradient computation has been modified by an inplace operation: [torch.FloatTensor [4]]
    is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the
    operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True,
"""

SEED = 1283
PROGRAM = """
v3 = torch.tensor([[0.999336, -0.144394, 1.02545, -0.486709], [-0.94562, -0.385809, -0.331351, 0.277092], [1.46973, -0.509394, 1.37067, -0.203377]], dtype=torch.float32, requires_grad=True)
v4 = torch.tensor([[0.855714, 0.532431, 0.0885669, 0.780398], [0.625863, 0.0672221, 0.814964, 0.66757], [0.375626, 0.9477, 0.0505292, 0.668084]], dtype=torch.float64, requires_grad=True)
v5 = torch.tensor([1.00757, 1.23519, 0.822747, 0.546557], dtype=torch.float32)
v6 = torch.tensor([[0.482167], [0.932924], [0.0364327]], dtype=torch.float64)
v7 = torch.nn.functional.binary_cross_entropy_with_logits(v3, v4, pos_weight=v5, weight=v6)
v5[::2] = -1.5
"""
