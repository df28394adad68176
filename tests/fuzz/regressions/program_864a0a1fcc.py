"""Fuzzer regression (seed 504900).

Before the fix: phase gradgrad[0]: presence: glassgrad None, PyTorch [[[0. 0. 0. 0.]   [0. 0. 0. 0.]   [0. 0. 0.
    0.]]   [[0. 0. 0. 0.]   [0. 0. 0. 0.]   [0. 0. 0. 0.]]]
"""

SEED = 504900
PROGRAM = """
v7 = torch.tensor([[[1.1848, 2.59553, 2.50022, 0.641397], [0.773566, 4.35226, -3.12644, -0.228468], [-2.65039, 0.161662, 4.51803, -3.98756]], [[0.335195, 5.43364, -2.52997, 1.73005], [0.0245908, 4.40627, -1.07926, 6.682], [3.46177, 4.30263, 4.89497, -5.72366]]], dtype=torch.float64, requires_grad=True)
v8 = torch.tensor([1.57179, -0.158784, -0.331797], dtype=torch.float64)
v9 = torch.nn.functional.prelu(v7, v8)
v8.requires_grad_()
"""
