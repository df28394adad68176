"""Fuzzer regression (seed 81886).

Before the fix: phase gradgrad[1]: presence: glassgrad [[ 2.25063459  0.67982365]  [-0.24759471 -0.07478812]
    [-1.89584459 -0.57265626]  [ 1.27646204  0.3855664 ]], PyTorch None
"""

SEED = 81886
PROGRAM = """
v4 = torch.tensor([[1.8187, 0.140695, 0.0172541, 0.411549], [-0.429127, -0.968554, 0.430484, 1.64232], [0.786446, 0.556403, -0.670682, 0.911521]], dtype=torch.float64)
v5 = torch.tensor([-0.431049, -0.884103, 1.54854, -0.99304], dtype=torch.float64, requires_grad=True)
v6 = torch.nn.functional.layer_norm(v4, (4,), None, v5)
v8 = torch.tensor([[-1.51675, 1.18591], [1.88105, -0.0939793], [0.0544532, 0.314335], [-0.258175, -0.945923]], dtype=torch.float64, requires_grad=True)
v9 = torch.mm(v6, v8)
"""
