"""Fuzzer regression (fuzz-views, seed 71809).

Before the fix: phase backward: error: glassgrad raised RuntimeError: A view was created in no_grad mode and its
    base or another view of its base has been modified inplace with grad mode enabled. This view
    is the output of a function that returns multiple views. Such functions do not allow the
    output views to be modified inplace. You should replace the inplace operati
"""

SEED = 71809
PROGRAM = """
v1 = torch.tensor([[-0.145415, 0.223697, 0.347188, -0.15702], [-1.42663, 0.331728, -0.567225, 0.659695], [-1.50799, -0.0812692, 0.194298, 0.300862]], dtype=torch.float64, requires_grad=True)
v2 = torch.tensor([0.221983, 2.38943, 0.862708, 0.537704], dtype=torch.float64)
with torch.no_grad(): v3 = torch.greater(v1, v2)
v5, v6, v7 = v3.split(1, 0)
v11 = torch.tensor(0.0592824, dtype=torch.float64, requires_grad=True)
v3[...] = v11
"""
