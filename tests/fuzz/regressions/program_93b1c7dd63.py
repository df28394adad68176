"""Fuzzer regression (seed 1310).

Before the fix: found: before: statement 3 `v5[None] = v2` v5: requires_grad: glassgrad False, PyTorch True
"""

SEED = 1310
PROGRAM = """
v1 = torch.tensor([[-1.33831, -0.358654, 1.05546, -1.91042], [-1.51636, -0.657732, 1.56698, 0.984999], [-1.7758, -0.139628, -0.936396, 0.956071]], dtype=torch.float32, requires_grad=True)
v2 = torch.norm(v1, float('-inf'))
v5 = torch.nn.functional.one_hot(torch.tensor([0, 2, 1], dtype=torch.int64), 5)
v5[None] = v2
"""
