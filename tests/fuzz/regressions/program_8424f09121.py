"""Fuzzer regression (seed 60393).

Before the fix: statement 1: error: glassgrad raised RuntimeError: torch.lu_unpack: LU_pivots is expected to be
    a contiguous tensor of torch.int32 dtype (PyTorch checks the pivots only with
    unpack_pivots=True)
"""

SEED = 60393
PROGRAM = """
v14 = torch.tensor([[2.45464, -0.272743, 0.0962901], [0.499258, 2.77146, -0.106757], [0.0108986, 0.477098, 3.29153]], dtype=torch.float32, requires_grad=True)
v15, v16, v17 = torch.lu_unpack(v14, torch.tensor([1, 2, 3], dtype=torch.int64), True, False)
"""
