"""Fuzzer regression (seed 81735).

Before the fix: statement 3 `v16 = torch.nn.functional.conv_transpose1d(v13, v14, v15)`: error: PyTorch raised
    RuntimeError: Input type (torch.FloatTensor) and bias type (torch.DoubleTensor) should be
    the same or input should be a MKLDNN tensor and bias is a dense tensor
"""

SEED = 81735
PROGRAM = """
v13 = torch.tensor([[[1.14262, 0.158867, 0.0319326, -0.652501, 0.415403], [0.0812214, 0.984287, 0.590151, 0.35868, 0.210148], [-0.498635, -0.427756, -0.469367, -0.327995, 0.438076]], [[-1.4058, 0.433687, 0.999754, -1.13968, 1.85957], [1.06774, 0.118288, 1.14936, 1.25764, 0.033928], [0.00714906, 2.05579, 0.457434, -0.0612231, 0.795724]]], dtype=torch.float32, requires_grad=True)
v14 = torch.tensor([[[0.823646, 0.252675, 0.292708], [-0.914773, -0.0175762, -0.601783]], [[0.928404, 0.059549, -0.268215], [-1.46342, -0.622547, -1.98823]], [[2.26149, 0.15948, 0.0889633], [-0.254291, -0.940999, 0.191678]]], dtype=torch.float32, requires_grad=True)
v15 = torch.tensor([0.0282747, -2.6389], dtype=torch.float64, requires_grad=True)
v16 = torch.nn.functional.conv_transpose1d(v13, v14, v15)
"""
