"""Fuzzer regression (seed 60320).

Before the fix: phase backward: error: PyTorch raised RuntimeError: addmv input tensors must have the same
    dtype, but got Float, Double, and Float (addr's backward promoted grad and the other vector;
    PyTorch's grad.mv(vec) checks their dtypes)
"""

SEED = 60320
PROGRAM = """
v11 = torch.tensor([[1.44485, 0.898723, 0.579486, 1.402], [0.394785, -1.17438, -0.53321, 1.44616], [-0.582366, 0.171029, -0.745744, 0.357236]], dtype=torch.float64, requires_grad=True)
v12 = torch.tensor([-0.382919, -1.53918, -0.125585], dtype=torch.float32, requires_grad=True)
v13 = torch.tensor([-0.213985, 0.179707, -1.52208, 1.24794], dtype=torch.float32, requires_grad=True)
v14 = v11.addr(v12, v13)
"""
