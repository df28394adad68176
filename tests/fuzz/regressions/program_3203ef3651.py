"""Fuzzer regression (fuzz-strides, seed 161210).

Before the fix: hook h4: count: glassgrad 2, PyTorch 3
"""

SEED = 161210
PROGRAM = """
v1 = torch.tensor([[[-0.879486, 0.40565, 0.987121], [0.377861, 0.121039, -0.470697], [2.13161, 0.031833, 1.67897], [-0.476378, 0.350292, 0.377281]], [[-1.13564, 1.1417, -0.177937], [-1.13792, -0.270621, -2.4391], [-1.62837, 0.106539, 0.084305], [0.392166, -0.439392, -0.771375]]], dtype=torch.float64, requires_grad=True)
v2 = torch.tensor([-0.488037, -0.289839, 0.993644, 0.00419539], dtype=torch.float64)
v3 = torch.nn.functional.group_norm(v1, 1, v2)
_ = v3.register_hook(hook('h4'))
"""
