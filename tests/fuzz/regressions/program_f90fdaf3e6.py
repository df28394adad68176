"""Fuzzer regression (seed 60830).

Before the fix: phase backward v3.grad: value: NaN where the other has none (clamp's backward multiplied the
    gradient by its mask: a NaN gradient stayed NaN where PyTorch's clamp_backward puts 0)
"""

SEED = 60830
PROGRAM = """
v3 = torch.tensor([[-0.557236, -0.608126, -1.07212], [0.186002, 1.29578, -1.14009]], dtype=torch.float32, requires_grad=True)
v4 = torch.rot90(v3, 2)
v5 = v4.clamp_(min=-0.5)
v6 = torch.tensor([0.128743, -0.794268, 1.05414], dtype=torch.float64, requires_grad=True)
v7 = v4.pow_(v6)
"""
