"""Fuzzer regression (seed 832124).

Before the fix: phase grad requires_grad: flags: glassgrad [False], PyTorch [True]
"""

SEED = 832124
PROGRAM = """
v0 = torch.tensor([[-0.732709, 0.285172, -1.65744, -2.83621], [1.47456, 2.36829, -0.335357, -0.185966], [1.30574, -1.43811, 0.880965, -0.088722]], dtype=torch.float64, requires_grad=True)
v1 = torch.tensor([[0.554059, 0.554059, 0.554059, 0.554059], [0.554059, 0.554059, 0.554059, 0.554059], [0.554059, 0.554059, 0.554059, 0.554059]], dtype=torch.float64)
v2 = torch.tensor([[-0.0, -0.0, 0.0, 0.0], [0.0, 0.0, 0.0, -0.0], [-0.0, -0.0, -0.0, 0.0]], dtype=torch.float64)
v3 = torch.nn.functional.l1_loss(v0, v1, weight=v2, reduction='sum')
v4 = v3.sgn_()
"""
