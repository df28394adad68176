"""Fuzzer regression (seed 73481).

Before the fix: phase gradgrad[1]: value: max error 1.08: glassgrad divides by each index's count (the adjoint
    of the scaled first backward), PyTorch's embedding_dense_double_backward does not
    (skips.PYTORCH_WRONG_SECOND_ORDER)
"""

SEED = 73481
PROGRAM = """
v9 = torch.tensor([[-0.031885, -0.194149], [-0.512008, 0.1266], [0.344719, 0.028667], [0.39229, 0.962575]], dtype=torch.float64, requires_grad=True)
v10 = torch.nn.functional.embedding(torch.tensor([[1, 3], [1, 1]], dtype=torch.int64), v9, scale_grad_by_freq=True)
v11 = torch.tensor([[[-0.368911, 0.965215], [-0.726565, 0.962041]], [[0.531029, -0.253887], [-0.352343, -0.684705]]], dtype=torch.float64, requires_grad=True)
v10[[1, 0]] *= v11
"""
