"""Fuzzer regression (seed 2562).

Before the fix: found: before: phase backward: error: PyTorch raised RuntimeError: Found dtype Double but
    expected Float
"""

SEED = 2562
PROGRAM = """
v12 = torch.tensor([[-0.485253, -0.840717, 1.69253, 0.692336], [-0.873423, -0.102319, 0.22238, 2.20942], [0.0251479, -0.188078, -1.1726, -0.26296]], dtype=torch.float32, requires_grad=True)
v13 = torch.tensor([[-0.42977, 0.939407, -1.19127, -0.861273], [1.78588, -0.197558, 0.919619, -0.165472], [-0.104019, 1.44558, 0.735508, -1.10606]], dtype=torch.float64, requires_grad=True)
v14 = torch.tensor([[0.145175, 0.514211, 0.293846, 0.156025], [0.680762, 0.669552, 0.198877, 0.5187], [0.818777, 0.313226, 0.691663, 0.999036]], dtype=torch.float64, requires_grad=True)
v15 = torch.nn.functional.huber_loss(v12, v13, weight=v14, reduction='none')
"""
