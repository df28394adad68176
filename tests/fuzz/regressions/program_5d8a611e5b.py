"""Fuzzer regression (seed 1525).

Before the fix: found: before: phase backward: error: PyTorch raised RuntimeError: Found dtype Double but
    expected Float
"""

SEED = 1525
PROGRAM = """
v0 = torch.tensor([[0.840065, -1.4551, 0.229523, -0.557459], [0.566618, 0.303022, 0.551152, 0.907507], [0.77464, -1.99586, 0.123837, -1.38306]], dtype=torch.float32, requires_grad=True)
v1 = torch.tensor([[0.606012, -0.291326, 1.28578, -0.456882], [-1.20132, -0.645859, -0.302477, 0.291407], [-0.238864, -0.309684, 0.587398, -0.146453]], dtype=torch.float64)
v2 = torch.nn.functional.huber_loss(v0, v1, reduction='sum')
"""
