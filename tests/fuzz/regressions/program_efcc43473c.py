"""Fuzzer regression (fuzz-strides, seed 115693).

Before the fix: phase gradgrad[0]: value: max error 1.83: glassgrad [[ 0.15156166 -0.03085576  0.          0.
    ]  [ 1.45346494  1.82882766  0.14210992  0.        ]  [ 0.          0.00655836  0.
    0.        ]], PyTorch [[ 0.15156166 -0.03085576  0.          0.        ]  [ 0.          0.
    0.14210992  0.        ]  [-0.          0.00655836  0.          0.        ]]
"""

SEED = 115693
PROGRAM = """
v1 = torch.tensor([[-0.262386, -0.219435, 1.40655, 1.15841], [0.0, 0.0, -0.0967941, 1.50167], [1.37951, -0.542358, 0.292588, 0.679152]], dtype=torch.float64, requires_grad=True)
v3 = torch.nn.functional.celu(v1)
"""
