"""Fuzzer regression (seed 70073).

Before the fix: statement 3 `v8 = torch.nn.functional.conv_transpose1d(v5, v6, v7)`: error: PyTorch raised
    RuntimeError: Input type (torch.FloatTensor) and bias type (torch.DoubleTensor) should be
    the same or input should be a MKLDNN tensor and bias is a dense tensor
"""

SEED = 70073
PROGRAM = """
v5 = torch.tensor([[[-0.0766313, 1.51595, -0.812402, 1.13265, 1.02545], [-1.67329, -0.154511, 0.44601, -0.631334, 0.773869], [1.39884, 0.446887, -0.322474, -0.175812, -1.20422]], [[0.375671, -0.838903, 0.174053, 0.772762, 1.19791], [0.0174194, 0.289066, 0.287737, -1.81927, 2.01504], [-0.496822, -0.905823, -0.547927, 0.602061, -0.155925]]], dtype=torch.float32, requires_grad=True)
v6 = torch.tensor([[[-0.97806, 1.20693, -0.689697], [-1.60337, 1.46173, 0.499162]], [[-1.53006, -0.185628, 0.0111492], [-0.810935, 1.50348, -0.97595]], [[2.55144, 0.355181, -1.31425], [1.61117, -0.666987, 0.865129]]], dtype=torch.float32, requires_grad=True)
v7 = torch.tensor([0.475326, -1.16167], dtype=torch.float64, requires_grad=True)
v8 = torch.nn.functional.conv_transpose1d(v5, v6, v7)
"""
