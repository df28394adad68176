"""Fuzzer regression (seed 82046).

Before the fix: phase gradgrad[0]: presence: glassgrad [0. 0. 0. 0.], PyTorch None
"""

SEED = 82046
PROGRAM = """
v3 = torch.tensor([[[-1.46574, 1.01292, -1.60641], [0.545388, 0.205755, -0.90864], [-0.56233, 0.260588, 0.00920939], [-1.58321, -2.21725, -0.975966]], [[-0.683611, 0.682785, 0.844373], [-1.20492, -0.204739, 1.2858], [-0.198453, -0.41773, 0.0415661], [0.504609, -1.67177, -2.03038]]], dtype=torch.float64)
v4 = torch.tensor([-0.96631, -0.0921787, 0.0282875, 0.0933451], dtype=torch.float64, requires_grad=True)
v5 = torch.nn.functional.group_norm(v3, 1, v4)
"""
