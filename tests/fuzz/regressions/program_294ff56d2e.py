"""Fuzzer regression (seed 60830).

Before the fix: phase backward v0.grad: value: NaN where the other has none (index_put's backward multiplied the
    gradient by a mask: a NaN gradient of an overwritten element stayed NaN where PyTorch writes
    0; found with the clamp case of seed 60830)
"""

SEED = 60830
PROGRAM = """
v0 = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
v1 = v0 * 1
v1[torch.tensor([0])] = torch.tensor([5.0])
v2 = v1 * torch.tensor([float("nan"), 1.0, 1.0])
"""
