"""Fuzzer regression (seed 2633).

Before the fix: found: before: phase backward: error: PyTorch raised RuntimeError: Found dtype Float but
    expected Double
"""

SEED = 2633
PROGRAM = """
v4 = torch.tensor([[-0.85812, -0.0160041, 0.726487, -0.314159], [0.975574, 3.06616, -0.590565, -0.50766], [0.176677, -0.287438, 0.749491, 0.537441]], dtype=torch.float32)
v5 = torch.tensor([[0.393793, 0.654969, -0.560485, -0.618707], [0.455037, 0.450605, -1.00056, -0.323148], [-1.95484, 0.597572, 0.113483, 2.23273]], dtype=torch.float64, requires_grad=True)
v6 = torch.nn.functional.huber_loss(v4, v5, delta=2.0, reduction='sum')
"""
