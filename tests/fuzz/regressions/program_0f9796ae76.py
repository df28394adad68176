"""Fuzzer regression (seed 701266).

Before the fix: statement 6 `v9 = v5.heaviside_(v8)` v5: value: NaN where the other has none: [[nan nan  1. nan]
    [ 0. nan nan  1.]  [ 1. nan  0.  0.]] / [[0. 0. 1. 0.]  [0. 0. 0. 1.]  [1. 0. 0. 0.]]
"""

SEED = 701266
PROGRAM = """
v0 = torch.tensor([[0.607788, 0.480158, 1.97308, 1.22139], [2.74949, 1.23955, 0.826154, 2.57867], [2.93138, 1.37487, 1.9181, 1.6716]], dtype=torch.float64)
v1 = torch.digamma(v0)
v2 = v1.log2_()
v4 = torch.tensor([[-0.578693, -0.934328, 1.38148, -0.470659], [-1.2242, -1.04972, 0.117104, 0.95448], [0.517112, 0.400564, -0.268995, 0.44624]], dtype=torch.float64, requires_grad=True)
v5 = v2 + v4
v8 = torch.tensor(0.954409, dtype=torch.float64, requires_grad=True)
v9 = v5.heaviside_(v8)
"""
