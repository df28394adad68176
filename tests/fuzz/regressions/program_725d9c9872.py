"""Fuzzer regression (fuzz-views, seed 70712).

Before the fix: phase backward: error: glassgrad raised RuntimeError: Output 0 of Split is a view and its base
    or another view of its base has been modified inplace. This view is the output of a function
    that returns multiple views. Such functions do not allow the output views to be modified
    inplace. You should replace the inplace operation by an out-of-place one.
"""

SEED = 70712
PROGRAM = """
v7 = torch.tensor([[[0.240755, -0.0202724, 0.00809362, -1.81984], [-3.44696, 1.20133, -0.864264, 0.239447], [-1.78816, 0.424617, 1.22704, -0.483019]], [[1.08418, -0.0436673, 0.78389, -0.606863], [1.71279, 0.655349, 0.687314, 1.16685], [0.328462, 1.34963, -0.901287, -0.434861]]], dtype=torch.float32, requires_grad=True)
v8 = torch.tensor([[[0.578176, 2.1045, -1.53839, 0.763987], [-2.52608, -0.205154, 0.0726562, -0.988506], [0.0958555, -0.838644, 0.797443, -0.0569255]], [[0.408126, -1.41854, 0.085815, 1.77913], [0.544497, 1.93836, -1.87035, 0.471058], [-0.0382391, -0.782883, -0.976161, -0.414876]]], dtype=torch.float32)
v9 = torch.fft.fft2((v7 + 1j * v8))
v10, v11 = v9.chunk(2, 2)
v12 = torch.tensor([1.70308, -0.349329, 0.107665, -0.656851], dtype=torch.float64, requires_grad=True)
v9[1:] = v12
"""
