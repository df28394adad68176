"""Fuzzer regression (seed 723154).

Before the fix: phase gradgrad[0]: value: infinities differ: [[ inf -inf  inf  inf]  [-inf -inf -inf  inf]  [
    inf -inf  inf  inf]] / [[-inf  inf  inf  inf]  [ inf  inf -inf -inf]  [ inf -inf  inf  inf]]
"""

SEED = 723154
PROGRAM = """
v6 = torch.tensor([[-0.0, -0.0, 0.0, 0.0], [-0.0, -0.0, 0.0, -0.0], [0.0, 0.0, 0.0, 0.0]], dtype=torch.float64, requires_grad=True)
v7 = torch.tensor([[0.0518714, 0.0518714, 0.0518714, 0.0518714], [0.0518714, 0.0518714, 0.0518714, 0.0518714], [0.0518714, 0.0518714, 0.0518714, 0.0518714]], dtype=torch.float64, requires_grad=True)
v8 = torch.nn.functional.binary_cross_entropy(v6, v7)
"""
