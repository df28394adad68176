"""Fuzzer regression (seed 710919).

Before the fix: phase backward v4.grad: value: NaN where the other has none: [[        nan -0.38610349
    nan  0.52610177]  [-0.6915002          nan -0.84369532         nan]  [ 1.07323091
    1.72627161         nan         nan]] / [[-0.053777   -0.38610349  0.81710904  0.52610177]
    [-0.6915002  -0.53604475 -0.84369532  0.27719431]  [ 1.07323091  1.72627161  0.57254089
    1.44285783]]
"""

SEED = 710919
PROGRAM = """
v4 = torch.tensor([[-1.45489, 0.30876, -0.908622, 0.147958], [0.566993, -0.331869, 0.539127, -0.817143], [0.0202058, 1.04559, -0.488523, -0.749928]], dtype=torch.float64, requires_grad=True)
v11 = torch.tensor([[1.51367, 0.303483, -1.35693, 0.53553], [-0.81088, 2.69483, -1.17369, 0.741851], [-1.48594, 1.02892, 1.93361, -1.14126]], dtype=torch.float32)
v12 = torch.nn.functional.kl_div(v11, v4, reduction='mean')
v13 = torch.tensor(-1.48806, dtype=torch.float64, requires_grad=True)
v14 = v12.copy_(v13)
"""
