"""Fuzzer regression (seed 62410).

Before the fix: phase grad: error: glassgrad raised RuntimeError: expected m1 and m2 to have the same dtype, but
    got: float != double (cholesky's new backward scaled phi by a float64 array: a float32
    factor's double backward mixed dtypes)
"""

SEED = 62410
PROGRAM = """
v2 = torch.tensor([[3.44366, 1.09409, -1.1333], [0.279007, 11.5631, -0.905703], [-0.419652, -0.574756, 8.81149]], dtype=torch.float32, requires_grad=True)
v3 = v2.cholesky(True)
"""
