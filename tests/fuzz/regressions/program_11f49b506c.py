"""Fuzzer regression (seed 74169).

Before the fix: statement 3 `v9, v10 = v3.kthvalue(2)` v10: value: glassgrad [2 3 2], PyTorch [1 3 2] (ties: a
    stable sort's pick, not ATen's quickselect's)
"""

SEED = 74169
PROGRAM = """
v1 = torch.tensor([[-1.63321, 2.6077, -0.465304, 1.71166], [-1.08797, -1.65412, -1.16076, -1.04014], [0.307282, -0.479048, -0.278728, 0.00688678]], dtype=torch.float64, requires_grad=True)
v2 = v1.gather(1, torch.tensor([[1, 0, 0, 3, 1], [3, 3, 1, 2, 3], [3, 1, 1, 3, 2]], dtype=torch.int64))
v3 = torch.nn.functional.log_softmax(v2, 1)
v9, v10 = v3.kthvalue(2)
"""
