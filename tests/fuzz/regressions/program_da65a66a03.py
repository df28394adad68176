"""Fuzzer regression (seed 855501).

Before the fix: phase backward v1.grad: value: NaN where the other has none: [[ 0.26711362  1.46527178
    -0.02591292         nan]  [-0.60522909 -0.68813162         nan         nan]  [ 0.05781613
    nan         nan         nan]] / [[ 0.26711362  1.46527178 -0.02591292         nan]
    [-0.60522909 -0.68813162         nan         nan]  [ 0.05781613         nan         nan
    0.46754017]]
"""

SEED = 855501
PROGRAM = """
v1 = torch.tensor([[-0.152866, -1.16262, -0.152866, -1.16262], [-1.16262, -0.152866, -0.152866, -1.16262], [-0.152866, -0.152866, -0.152866, -0.152866]], dtype=torch.float64, requires_grad=True)
v3 = torch.tensor([1.1628, 0.655568], dtype=torch.float64, requires_grad=True)
v4 = torch.linalg.householder_product(v1.reshape((4, 3)), v3)
v6 = v4 ** -1.5
"""
