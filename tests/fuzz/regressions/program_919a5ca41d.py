"""Fuzzer regression (fuzz-views, seed 75257).

Before the fix: phase backward: error: PyTorch raised RuntimeError: leaf variable has been moved into the graph
    interior
"""

SEED = 75257
PROGRAM = """
v0 = torch.tensor([-0.365487, 0.935762, -1.04968], dtype=torch.float64, requires_grad=True)
v1 = torch.tensor([0.709404, -1.06831, 0.716102], dtype=torch.float64)
v2 = torch.tensor([0.724304, -0.462695, 0.978281], dtype=torch.float64, requires_grad=True)
v3 = torch.nn.functional.triplet_margin_loss(v0, v1, v2, margin=3.0, reduction='sum')
v2.detach_()
v5 = torch.tensor(0.0854001, dtype=torch.float64, requires_grad=True)
v2[torch.tensor([2])] += v5
"""
